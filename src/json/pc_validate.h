/*
 * pc_validate.h - structural checks of processed and Gecko profile JSON.
 */
#ifndef PC_VALIDATE_H
#define PC_VALIDATE_H

#include "io/pc_input.h"

int pc_validate(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out);

#endif /* PC_VALIDATE_H */

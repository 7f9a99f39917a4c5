#include "json/pc_validate.h"
int pc_validate(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out)
{
	(void)in; (void)out;
	return pc_fail(ctx, PROFCONV_ERR_UNSUPPORTED, NULL, "validate: not built yet");
}

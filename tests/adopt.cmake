# SPDX-License-Identifier: BSD-2-Clause
# Tests of what adopting profconv needs: batch reports and their merge, the
# command's help against its man page.
set(PC_BIN $<TARGET_FILE:profconv-cli>)
add_test(NAME cli.report COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/report_test.sh ${PC_BIN})
add_test(NAME cli.help-man COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/help_man_test.py ${PC_BIN}
         ${CMAKE_SOURCE_DIR}/docs/profconv.1)

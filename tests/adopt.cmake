# SPDX-License-Identifier: BSD-2-Clause
# Tests of what adopting profconv needs: the license on every source file,
# batch reports and their merge, the command's help against its man page,
# shell completions, the Debian packages, the container's build steps and
# the CI job files of docs/batch/.
set(PC_BIN $<TARGET_FILE:profconv-cli>)
add_test(NAME license COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/license_test.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(license PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME cli.report COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/report_test.sh ${PC_BIN})
add_test(NAME cli.help-man COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/help_man_test.py ${PC_BIN}
         ${CMAKE_SOURCE_DIR}/docs/profconv.1)
add_test(NAME completion COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/completion_test.sh ${PC_BIN}
         ${CMAKE_SOURCE_DIR})
# cpack from this build tree (no rebuild), then the packages unpacked and run
add_test(NAME package COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/package_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(package PROPERTIES LABELS install TIMEOUT 600)
# the Dockerfile's build stage run here (reusing this build tree)
add_test(NAME container COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/container_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(container PROPERTIES LABELS install TIMEOUT 600)

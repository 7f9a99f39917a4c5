# SPDX-License-Identifier: BSD-2-Clause
# The library's ABI (tests/abi/): the recorded ABI of this version against
# the build's (abi.check), a demonstration that an added struct member
# without a version bump fails that check (abi.demo), and the one table of
# diagnostic codes against the library's and the warning kinds in src/
# (abi.diag-codes).
add_test(NAME abi.check COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/abi/abi_check.sh
         $<TARGET_FILE:profconv> ${CMAKE_SOURCE_DIR}/include)
add_test(NAME abi.demo COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/abi/abi_demo.sh
         $<TARGET_FILE:profconv>)
set_tests_properties(abi.check abi.demo PROPERTIES ENVIRONMENT "CC=${CMAKE_C_COMPILER}")
add_test(NAME abi.diag-codes COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/abi/diag_codes_check.py
         ${CMAKE_SOURCE_DIR})

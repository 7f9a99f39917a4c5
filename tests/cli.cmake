# SPDX-License-Identifier: BSD-2-Clause
# End-to-end tests of the profconv command (tests/cli_test.sh).
set(PC_CLI_TEST ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh)
set(PC_BIN $<TARGET_FILE:profconv-cli>)

# Real recordings, compared with the perf script output saved beside them.
file(GLOB PC_PERF_Y CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/perf/y_*.data)
list(FILTER PC_PERF_Y EXCLUDE REGEX "y_synth_")
foreach(f ${PC_PERF_Y})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME perf.${name} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} perf-y ${name})
endforeach()
add_test(NAME perf.y_multi_event.task-clock
         COMMAND sh ${PC_CLI_TEST} ${PC_BIN} perf-y y_multi_event task-clock)
add_test(NAME perf.y_pipe_tracepoint.sched_switch
         COMMAND sh ${PC_CLI_TEST} ${PC_BIN} perf-y y_pipe_tracepoint sched:sched_switch)

file(GLOB PC_PERF_N CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/perf/n_*.data)
foreach(f ${PC_PERF_N})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME perf.${name} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} perf-n ${name})
endforeach()

file(GLOB PC_PERF_I CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/perf/i_*.data)
foreach(f ${PC_PERF_I})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME perf.${name} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} perf-i ${name})
endforeach()

foreach(name y_fork_exec i_truncated_tail y_synth_le)
  add_test(NAME golden.${name} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} golden ${name})
endforeach()

foreach(c compressed stdin keep-output usage weight info clock synth-endian perf-names perf-chain-tail perf-threads perf-remap symbols
    symbolicate jitdump perf-stack-thread perf-frame-table)
  add_test(NAME cli.${c} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} ${c})
endforeach()

# Install into a temporary prefix and build examples/convert.c against it with
# pkg-config and with find_package(profconv).
add_test(NAME install COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(install PROPERTIES LABELS install TIMEOUT 600)

add_test(NAME cli.outputs COMMAND sh ${PC_CLI_TEST} ${PC_BIN} outputs)
foreach(name esr153-cut esr153-extras)
  add_test(NAME gecko.counts.${name} COMMAND sh ${PC_CLI_TEST} ${PC_BIN} gecko-counts ${name})
endforeach()
add_test(NAME gecko.damaged COMMAND sh ${PC_CLI_TEST} ${PC_BIN} gecko-damaged)
add_test(NAME gecko.deep-payload COMMAND sh ${PC_CLI_TEST} ${PC_BIN} gecko-deep-payload)
add_test(NAME cli.outputs-validate COMMAND sh ${PC_CLI_TEST} ${PC_BIN} outputs-validate)
add_test(NAME cli.edges COMMAND sh ${PC_CLI_TEST} ${PC_BIN} edges)
add_test(NAME cli.batch COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/batch_test.sh ${PC_BIN})
add_test(NAME cli.batch-docs COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/batch_docs_test.sh ${PC_BIN})
add_test(NAME cli.symcache COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/symcache_test.sh ${PC_BIN})
add_test(NAME cli.sympersist COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sympersist_test.sh ${PC_BIN})
add_test(NAME cli.kallsyms-cache COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/kallsyms_cache_test.sh ${PC_BIN})
add_test(NAME cli.edges-input COMMAND sh ${PC_CLI_TEST} ${PC_BIN} edges-input)
add_test(NAME cli.hermetic COMMAND sh ${PC_CLI_TEST} ${PC_BIN} hermetic)
add_test(NAME cli.race COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/race_test.sh ${PC_BIN})
add_test(NAME cli.readme COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/readme_test.sh ${PC_BIN})
add_test(NAME cli.compress-out COMMAND sh ${PC_CLI_TEST} ${PC_BIN} compress-out)
add_test(NAME cli.startup-libs COMMAND sh ${PC_CLI_TEST} ${PC_BIN} startup-libs)
add_test(NAME cli.view COMMAND sh ${PC_CLI_TEST} ${PC_BIN} view)
# profconv serve (tests/serve_test.py): profiles, the symbol server API, security.
foreach(part serve symbols source asm security)
  add_test(NAME cli.serve.${part}
           COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/serve_test.py ${PC_BIN}
                   ${CMAKE_CURRENT_SOURCE_DIR}/fixtures ${part})
endforeach()
add_test(NAME cli.gecko-writer COMMAND sh ${PC_CLI_TEST} ${PC_BIN} gecko-writer)
add_test(NAME cli.gecko-write-thread COMMAND sh ${PC_CLI_TEST} ${PC_BIN} gecko-write-thread)
add_test(NAME cli.chrome COMMAND sh ${PC_CLI_TEST} ${PC_BIN} chrome)
add_test(NAME cli.chrome-weights COMMAND sh ${PC_CLI_TEST} ${PC_BIN} chrome-weights)
add_test(NAME cli.chrome-contexts COMMAND sh ${PC_CLI_TEST} ${PC_BIN} chrome-contexts)
add_test(NAME cli.chrome-v8-arrays COMMAND sh ${PC_CLI_TEST} ${PC_BIN} chrome-v8-arrays)
add_test(NAME cli.offcpu COMMAND sh ${PC_CLI_TEST} ${PC_BIN} offcpu)
add_test(NAME cli.dwarf COMMAND sh ${PC_CLI_TEST} ${PC_BIN} dwarf)
add_test(NAME gecko.buffer COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gecko_buffer_test.sh ${PC_BIN})

# gecko-dump PID: a stand-in process holding a real scrape's chunks
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_executable(gecko_capture_target ${CMAKE_CURRENT_SOURCE_DIR}/gecko_capture_target.c)
  add_test(NAME gecko.capture COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/gecko_capture_test.sh
           ${PC_BIN} $<TARGET_FILE:gecko_capture_target>)
  set_tests_properties(gecko.capture PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The command under hostile use (issue 22): -o onto the input, batch mode killed
add_test(NAME cli.self-output COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hostile_cli_test.sh ${PC_BIN} self-output)
add_test(NAME cli.batch-signals COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hostile_cli_test.sh ${PC_BIN} batch-signals)

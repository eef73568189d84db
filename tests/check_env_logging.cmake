# Runs a program with API logging turned on through the environment
# (ANYDNN_LOGINFO_DBG, ANYDNN_LOGERR_DBG, ANYDNN_LOGDEST_DBG=<file>) and checks
# that the log names API calls and the failing call's message.
#   cmake -DEXE=<program> -DLOG=<file> -P check_env_logging.cmake
file(REMOVE ${LOG})
set(ENV{ANYDNN_LOGINFO_DBG} 1)
set(ENV{ANYDNN_LOGERR_DBG} 1)
set(ENV{ANYDNN_LOGDEST_DBG} ${LOG})
execute_process(COMMAND ${EXE} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()
file(READ ${LOG} log)
foreach(expected "INFO! " "anydnnCreate" "anydnnActivationForward"
                 "ERROR! " "anydnnSetTensor4dDescriptor: dimA[1] is 0")
  string(FIND "${log}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the log ${LOG} lacks \"${expected}\"")
  endif()
endforeach()

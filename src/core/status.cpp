#include "core/status.hpp"

#include <cstdarg>
#include <cstdio>

namespace anydnn {
namespace {
thread_local std::string t_pending;
thread_local std::string t_last_error;
}  // namespace

Status fail(Status status, const char *fmt, ...) {
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    t_pending = buf;
    return status;
}

const std::string &pending_message() { return t_pending; }
void clear_pending_message() { t_pending.clear(); }
void set_last_error(const std::string &message) { t_last_error = message; }
const std::string &last_error() { return t_last_error; }

const char *status_name(Status status) {
    switch (status) {
    case ANYDNN_STATUS_SUCCESS: return "ANYDNN_STATUS_SUCCESS";
    case ANYDNN_STATUS_NOT_INITIALIZED: return "ANYDNN_STATUS_NOT_INITIALIZED";
    case ANYDNN_STATUS_ALLOC_FAILED: return "ANYDNN_STATUS_ALLOC_FAILED";
    case ANYDNN_STATUS_BAD_PARAM: return "ANYDNN_STATUS_BAD_PARAM";
    case ANYDNN_STATUS_INTERNAL_ERROR: return "ANYDNN_STATUS_INTERNAL_ERROR";
    case ANYDNN_STATUS_INVALID_VALUE: return "ANYDNN_STATUS_INVALID_VALUE";
    case ANYDNN_STATUS_ARCH_MISMATCH: return "ANYDNN_STATUS_ARCH_MISMATCH";
    case ANYDNN_STATUS_MAPPING_ERROR: return "ANYDNN_STATUS_MAPPING_ERROR";
    case ANYDNN_STATUS_EXECUTION_FAILED: return "ANYDNN_STATUS_EXECUTION_FAILED";
    case ANYDNN_STATUS_NOT_SUPPORTED: return "ANYDNN_STATUS_NOT_SUPPORTED";
    case ANYDNN_STATUS_LICENSE_ERROR: return "ANYDNN_STATUS_LICENSE_ERROR";
    case ANYDNN_STATUS_RUNTIME_PREREQUISITE_MISSING: return "ANYDNN_STATUS_RUNTIME_PREREQUISITE_MISSING";
    case ANYDNN_STATUS_RUNTIME_IN_PROGRESS: return "ANYDNN_STATUS_RUNTIME_IN_PROGRESS";
    case ANYDNN_STATUS_RUNTIME_FP_OVERFLOW: return "ANYDNN_STATUS_RUNTIME_FP_OVERFLOW";
    case ANYDNN_STATUS_VERSION_MISMATCH: return "ANYDNN_STATUS_VERSION_MISMATCH";
    }
    return "ANYDNN_STATUS_UNKNOWN";
}

}  // namespace anydnn

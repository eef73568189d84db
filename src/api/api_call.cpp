#include "api/api_call.hpp"

namespace anydnn {

void api_finish(const char *function, anydnnHandle_t handle, Status status) {
    if (status == kSuccess) {
        if (!last_error().empty()) set_last_error(std::string());
        return;
    }
    std::string msg = function;
    msg += ": ";
    msg += pending_message().empty() ? status_name(status) : pending_message();
    if (log_enabled(ANYDNN_SEV_ERROR)) log_message(ANYDNN_SEV_ERROR, status, handle, msg.c_str());
    set_last_error(msg);
}

}  // namespace anydnn

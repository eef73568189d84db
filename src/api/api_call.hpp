// The one way every C entry point runs its body.
//
//   anydnnStatus_t anydnnFoo(...) {
//       return anydnn::api_call("anydnnFoo", handle, [&] { ...; return status; });
//   }
//
// It logs the call (ANYDNN_LOGINFO_DBG), turns any C++ exception into a
// status (bad_alloc -> ALLOC_FAILED, anything else -> INTERNAL_ERROR), and on
// failure publishes "<function>: <message>" as this thread's last error and
// logs it; on success it clears the last error.
#pragma once

#include <new>
#include <string>

#include "core/logging.hpp"
#include "core/status.hpp"

namespace anydnn {

void api_finish(const char *function, anydnnHandle_t handle, Status status);

template <class Body>
Status api_call(const char *function, anydnnHandle_t handle, Body &&body) noexcept {
    if (log_enabled(ANYDNN_SEV_INFO)) log_message(ANYDNN_SEV_INFO, kSuccess, handle, function);
    clear_pending_message();
    Status status;
    try {
        status = body();
    } catch (const std::bad_alloc &) {
        status = fail(ANYDNN_STATUS_ALLOC_FAILED, "out of memory");
    } catch (const std::exception &e) {
        status = fail(ANYDNN_STATUS_INTERNAL_ERROR, "internal error: %s", e.what());
    } catch (...) {
        status = fail(ANYDNN_STATUS_INTERNAL_ERROR, "internal error: unknown exception");
    }
    api_finish(function, handle, status);
    return status;
}

}  // namespace anydnn

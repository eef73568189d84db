// Status propagation and the last-error message.
//
// Internal code returns anydnnStatus_t; a failure is made with fail(), which
// also records a message for this thread. The API layer (api_call in
// src/api/api_call.hpp) prefixes the function name, publishes the message to
// anydnnGetLastErrorString and the logger, and catches any C++ exception so
// none crosses the C API.
#pragma once

#include <string>

#include "anydnn/anydnn_core.h"

namespace anydnn {

using Status = anydnnStatus_t;
constexpr Status kSuccess = ANYDNN_STATUS_SUCCESS;

// Records a printf-style message for this thread and returns `status`.
[[gnu::format(printf, 2, 3)]] Status fail(Status status, const char *fmt, ...);

// The message recorded by the last fail() on this thread, and its reset.
const std::string &pending_message();
void clear_pending_message();

// The published last-error message of this thread (what the C API returns).
void set_last_error(const std::string &message);
const std::string &last_error();

const char *status_name(Status status);

}  // namespace anydnn

#define ANYDNN_TRY(expr)                                  \
    do {                                                  \
        ::anydnn::Status anydnn_try_status_ = (expr);     \
        if (anydnn_try_status_ != ::anydnn::kSuccess)     \
            return anydnn_try_status_;                    \
    } while (0)

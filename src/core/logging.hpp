// API logging in the style of cuDNN's CUDNN_LOGINFO_DBG / CUDNN_LOGDEST_DBG.
#pragma once

#include "anydnn/anydnn_core.h"

namespace anydnn {

// True when a message of this severity goes anywhere (cheap: one atomic load).
bool log_enabled(anydnnSeverity_t sev);
// Sends one message to the callback, or to the destination named by
// ANYDNN_LOGDEST_DBG. Thread-safe.
void log_message(anydnnSeverity_t sev, anydnnStatus_t status, anydnnHandle_t handle, const char *msg);

void set_log_callback(unsigned mask, void *udata, anydnnCallback_t fptr);
void get_log_callback(unsigned *mask, void **udata, anydnnCallback_t *fptr);

}  // namespace anydnn

#include "core/handle.hpp"

#include <omp.h>

#include <cstdlib>
#include <new>

namespace anydnn {

Status handle_arg(const anydnnContext *handle, const Handle **out) {
    if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
    *out = handle;
    return kSuccess;
}

Status create_handle(anydnnContext **out, anydnnDevice_t device, int ordinal) {
    if (out == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
    if (device == ANYDNN_DEVICE_CUDA)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "device ANYDNN_DEVICE_CUDA: this build of anydnn has no CUDA backend (CPU only)");
    if (device != ANYDNN_DEVICE_CPU)
        return fail(ANYDNN_STATUS_BAD_PARAM, "device %d is not an anydnnDevice_t", device);
    if (ordinal != 0) return fail(ANYDNN_STATUS_BAD_PARAM, "ordinal is %d, the CPU device is ordinal 0", ordinal);
    auto *h = new (std::nothrow) anydnnContext;
    if (h == nullptr) return fail(ANYDNN_STATUS_ALLOC_FAILED, "out of memory for the handle");
    h->device = device;
    h->ordinal = ordinal;
    h->isa = selected_isa();
    h->default_threads = omp_get_max_threads();
    if (const char *env = std::getenv("ANYDNN_NUM_THREADS")) {
        const int n = std::atoi(env);
        if (n > 0) h->default_threads = n;
    }
    *out = h;
    return kSuccess;
}

}  // namespace anydnn

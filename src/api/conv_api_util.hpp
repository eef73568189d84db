// Pieces shared by the convolution entry points of every direction:
// perf-result arguments, workspace checks, Find's own buffers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#include "core/status.hpp"

namespace anydnn {

template <class Perf>
Status perf_results_arg(int requested, const int *returned, const Perf *perf) {
    if (requested < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "requestedAlgoCount is %d (< 1)", requested);
    if (returned == nullptr || perf == nullptr)
        return fail(ANYDNN_STATUS_BAD_PARAM, "returnedAlgoCount and perfResults may not be NULL");
    return kSuccess;
}

// The first min(requested, count) of the ranked choices.
template <class Choice, class Perf>
void copy_results(const Choice *all, int count, int requested, int *returned, Perf *perf) {
    const int n = requested < count ? requested : count;
    for (int i = 0; i < n; ++i) perf[i] = all[i].perf;
    *returned = n;
}

// BAD_PARAM when the caller's workspace is smaller than `need`, or NULL
// with a size.
inline Status workspace_fits(std::size_t need, const void *ws, std::size_t ws_bytes) {
    if (ws_bytes < need)
        return fail(ANYDNN_STATUS_BAD_PARAM, "workSpaceSizeInBytes is %zu, the algorithm needs %zu", ws_bytes, need);
    if (ws == nullptr && ws_bytes > 0)
        return fail(ANYDNN_STATUS_BAD_PARAM, "workSpace is NULL with workSpaceSizeInBytes %zu", ws_bytes);
    return kSuccess;
}

// A zeroed, 64-byte aligned host buffer (Find's own operands).
struct Buffer {
    std::unique_ptr<unsigned char, decltype(&std::free)> mem{nullptr, &std::free};
    explicit Buffer(std::size_t bytes) {
        const std::size_t rounded = (bytes + 63) / 64 * 64 + 64;
        mem.reset(static_cast<unsigned char *>(std::aligned_alloc(64, rounded)));
        if (mem == nullptr) throw std::bad_alloc();
        std::fill(mem.get(), mem.get() + rounded, 0);
    }
    void *get() const { return mem.get(); }
};

}  // namespace anydnn

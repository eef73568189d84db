#include "core/anydnn_util.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace anydnn_bench {

void check(anydnnStatus_t status, const char *call) {
    if (status == ANYDNN_STATUS_SUCCESS) return;
    char message[512];
    anydnnGetLastErrorString(message, sizeof message);
    const std::string what = std::string(call) + ": " + anydnnGetErrorString(status) + ": " + message;
    if (status == ANYDNN_STATUS_NOT_SUPPORTED) throw Unsupported(what);
    throw LibraryError(what);
}

Handle::Handle(const char *max_isa) {
    // The handle reads ANYDNN_MAX_ISA once, at creation; the user's setting
    // is restored right after.
    const char *env = std::getenv("ANYDNN_MAX_ISA");
    const std::string saved = env != nullptr ? env : "";
    if (max_isa != nullptr) setenv("ANYDNN_MAX_ISA", max_isa, 1);
    const anydnnStatus_t status = anydnnCreateEx(&h_, ANYDNN_DEVICE_CPU, 0);
    if (max_isa != nullptr) {
        if (env != nullptr)
            setenv("ANYDNN_MAX_ISA", saved.c_str(), 1);
        else
            unsetenv("ANYDNN_MAX_ISA");
    }
    check(status, "anydnnCreateEx");
}

Handle::~Handle() { anydnnDestroy(h_); }

void Handle::set_threads(int threads) { check(anydnnSetNumThreads(h_, threads), "anydnnSetNumThreads"); }

TensorDesc::TensorDesc(anydnnDataType_t dt, const Dims &dims, Tag tag) : Owned("anydnnCreateTensorDescriptor") {
    const Dims strides = strides_for(dims, tag);
    int dim_a[ANYDNN_DIM_MAX], stride_a[ANYDNN_DIM_MAX];
    const int rank = static_cast<int>(dims.size());
    for (int i = 0; i < rank && i < ANYDNN_DIM_MAX; ++i) {
        dim_a[i] = static_cast<int>(dims[i]);
        stride_a[i] = static_cast<int>(strides[i]);
    }
    check(anydnnSetTensorNdDescriptor(*this, dt, rank, dim_a, stride_a), "anydnnSetTensorNdDescriptor");
}

}  // namespace anydnn_bench

// Small owners for anydnn handles and descriptors, and a status check that
// throws with the library's own message: what a user of the C API writes
// once and keeps.
#pragma once

#include <anydnn/anydnn.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace mnist {

inline void check(anydnnStatus_t s, const char *call) {
    if (s == ANYDNN_STATUS_SUCCESS) return;
    char message[512];
    anydnnGetLastErrorString(message, sizeof message);
    throw std::runtime_error(std::string(call) + ": " + anydnnGetErrorString(s) + ": " + message);
}
#define MNIST_CHECK(call) ::mnist::check((call), #call)

// One owner type per descriptor kind: Create in the constructor, Destroy in
// the destructor, the raw descriptor by conversion.
template <class T, anydnnStatus_t (*Create)(T *), anydnnStatus_t (*Destroy)(T)>
class Owned {
public:
    Owned() { check(Create(&d_), "anydnnCreate...Descriptor"); }
    ~Owned() { Destroy(d_); }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    operator T() const { return d_; }

private:
    T d_{};
};

using Handle = Owned<anydnnHandle_t, anydnnCreate, anydnnDestroy>;
using TensorDescriptor = Owned<anydnnTensorDescriptor_t, anydnnCreateTensorDescriptor, anydnnDestroyTensorDescriptor>;
using FilterDescriptor = Owned<anydnnFilterDescriptor_t, anydnnCreateFilterDescriptor, anydnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    Owned<anydnnConvolutionDescriptor_t, anydnnCreateConvolutionDescriptor, anydnnDestroyConvolutionDescriptor>;
using PoolingDescriptor = Owned<anydnnPoolingDescriptor_t, anydnnCreatePoolingDescriptor, anydnnDestroyPoolingDescriptor>;
using ActivationDescriptor =
    Owned<anydnnActivationDescriptor_t, anydnnCreateActivationDescriptor, anydnnDestroyActivationDescriptor>;
using OpTensorDescriptor = Owned<anydnnOpTensorDescriptor_t, anydnnCreateOpTensorDescriptor, anydnnDestroyOpTensorDescriptor>;
using ReduceTensorDescriptor =
    Owned<anydnnReduceTensorDescriptor_t, anydnnCreateReduceTensorDescriptor, anydnnDestroyReduceTensorDescriptor>;

// An NCHW float tensor: its descriptor and its host memory (the CPU backend
// works on host pointers).
struct Tensor {
    TensorDescriptor desc;
    std::vector<float> data;
    int n = 0, c = 0, h = 0, w = 0;

    Tensor(int n_, int c_, int h_, int w_) : data(static_cast<size_t>(n_) * c_ * h_ * w_), n(n_), c(c_), h(h_), w(w_) {
        MNIST_CHECK(anydnnSetTensor4dDescriptor(desc, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, n, c, h, w));
    }
    float *ptr() { return data.data(); }
    const float *ptr() const { return data.data(); }
};

}  // namespace mnist

// Small RAII and error helpers over anydnn's C API, shared by the drivers.
#pragma once

#include "anydnn/anydnn.h"
#include "core/types.hpp"

namespace anydnn_bench {

// Throws Unsupported for NOT_SUPPORTED and LibraryError for any other
// failure, with the status and anydnn's last-error message.
void check(anydnnStatus_t status, const char *call);

// A handle for the CPU, capped at `max_isa` (ANYDNN_MAX_ISA's values) when
// it is not empty.
class Handle {
public:
    explicit Handle(const char *max_isa = nullptr);
    ~Handle();
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    operator anydnnHandle_t() const { return h_; }
    void set_threads(int threads);

private:
    anydnnHandle_t h_ = nullptr;
};

// An anydnn descriptor, created with its owner and destroyed with it; the
// ops' descriptors derive from it and set themselves up in their
// constructors (a failed Set* throws, and the base destroys what it made).
template <class T, anydnnStatus_t (*Create)(T *), anydnnStatus_t (*Destroy)(T)>
class Owned {
public:
    explicit Owned(const char *create_name) { check(Create(&d_), create_name); }
    ~Owned() { Destroy(d_); }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    operator T() const { return d_; }

private:
    T d_ = nullptr;
};

// A tensor descriptor of `dims` (3 to 8 of them) packed in `tag` order.
class TensorDesc
    : public Owned<anydnnTensorDescriptor_t, anydnnCreateTensorDescriptor, anydnnDestroyTensorDescriptor> {
public:
    TensorDesc(anydnnDataType_t dt, const Dims &dims, Tag tag);
};

// alpha/beta as anydnn reads them: double for DOUBLE tensors, float otherwise.
class Scalar {
public:
    explicit Scalar(double v) : d_(v), f_(static_cast<float>(v)) {}
    const void *get(anydnnDataType_t dt) const {
        return dt == ANYDNN_DATA_DOUBLE ? static_cast<const void *>(&d_) : static_cast<const void *>(&f_);
    }

private:
    double d_;
    float f_;
};

// The compute type of descriptors (OpTensor, ReduceTensor) for tensors of dt.
inline anydnnDataType_t compute_type(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
}

}  // namespace anydnn_bench

// Test utilities shared by every suite: handles per ISA level, tensors in
// guarded buffers with random contents, element access by data type, and
// the error measures of DESIGN.md.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "anydnn/anydnn.h"

namespace anydnn_test {

#define ASSERT_OK(expr) ASSERT_EQ((expr), ANYDNN_STATUS_SUCCESS) << last_error()
#define EXPECT_OK(expr) EXPECT_EQ((expr), ANYDNN_STATUS_SUCCESS) << last_error()

// The calling thread's anydnnGetLastErrorString.
std::string last_error();

// Expects `status` from expr and a non-empty last-error message.
#define EXPECT_STATUS(expr, status)                                        \
    do {                                                                   \
        anydnnStatus_t s_ = (expr);                                        \
        EXPECT_EQ(s_, (status)) << #expr;                                  \
        EXPECT_FALSE(::anydnn_test::last_error().empty()) << #expr;        \
    } while (0)

// The ISA levels every fast path is tested on.
const std::vector<std::string> &isa_levels();
// A handle whose kernels are capped at `isa` (via ANYDNN_MAX_ISA at
// creation); skips the test (GTEST_SKIP in the caller) when the machine
// lacks that level: check `available` first.
struct Handle {
    anydnnHandle_t h = nullptr;
    bool available = false;
    explicit Handle(const std::string &isa, int threads = 2);
    ~Handle();
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    operator anydnnHandle_t() const { return h; }
};
#define SKIP_IF_UNAVAILABLE(handle) \
    if (!(handle).available) GTEST_SKIP() << "ISA level not available on this machine"

// A seeded generator; tests print the seed on failure through SCOPED_TRACE.
std::mt19937_64 &rng();
uint64_t seed();

size_t dtype_size(anydnnDataType_t dt);
const char *dtype_name(anydnnDataType_t dt);

// Dimensions + strides of a test tensor.
struct Shape {
    std::vector<int> dims;
    std::vector<int> strides;
    std::string to_string() const;
    int64_t elements() const;
    int64_t span() const;  // 1 + sum (d-1)*s
};
// Packed NCHW-order strides; NHWC-order (channels innermost); and padded:
// like NCHW but each dimension's stride grows by `pad` elements (gaps).
Shape packed(const std::vector<int> &dims);
Shape packed_nhwc(const std::vector<int> &dims);
Shape padded(const std::vector<int> &dims, int pad = 3);

// A tensor in host memory with guard bytes before and after its span, and a
// descriptor. Elements are read and written as doubles, converted to and
// from the tensor's type as the library stores them.
class Tensor {
public:
    // The first element's address is `misalign` bytes past a multiple of 64:
    // 16 by default, so that vector code meets unaligned data; 0 for the
    // paths that only aligned outputs take (streaming stores of whole
    // vectors).
    Tensor(const Shape &shape, anydnnDataType_t dt, size_t misalign = 16);
    ~Tensor();
    Tensor(const Tensor &) = delete;
    Tensor &operator=(const Tensor &) = delete;

    anydnnTensorDescriptor_t desc() const { return desc_; }
    void *data() { return bytes_.data() + base_ + kGuard; }
    const void *data() const { return bytes_.data() + base_ + kGuard; }
    const Shape &shape() const { return shape_; }
    anydnnDataType_t dtype() const { return dt_; }

    // Element at a multi-index / at a linear offset in elements.
    double at(const std::vector<int> &idx) const;
    void set(const std::vector<int> &idx, double v);
    double at_offset(int64_t off) const;
    void set_offset(int64_t off, double v);
    int64_t offset(const std::vector<int> &idx) const;

    // Random values in [lo, hi) in every element (the gaps too).
    void fill_random(double lo = -1.0, double hi = 1.0);
    // Every byte of the span, gaps included, set to a NaN pattern (floating
    // types) or 0x5a (integers), so an unwritten element fails a comparison.
    void poison();
    // Copies the bytes of the span, gaps included.
    void copy_from(const Tensor &o);
    // True when the guard bytes are intact.
    bool guards_intact() const;
    // True when no byte in a gap (within the span, outside the elements)
    // differs from `o`'s.
    bool gaps_equal(const Tensor &o) const;

    // Every element (index order of dims, row-major) as doubles.
    std::vector<double> values() const;

    static constexpr size_t kGuard = 64;

private:
    Shape shape_;
    anydnnDataType_t dt_;
    std::vector<unsigned char> bytes_;
    size_t base_ = 0;  // where the guard before the elements starts in bytes_
    anydnnTensorDescriptor_t desc_ = nullptr;
};

// Scalars as the API reads them: double for DOUBLE tensors, float otherwise.
struct Scalar {
    float f;
    double d;
    explicit Scalar(double v) : f(static_cast<float>(v)), d(v) {}
    const void *ptr(anydnnDataType_t dt) const { return dt == ANYDNN_DATA_DOUBLE ? static_cast<const void *>(&d) : &f; }
};

// Calls fn(idx) for every multi-index of dims, row-major.
void for_each_index(const std::vector<int> &dims, const std::function<void(const std::vector<int> &)> &fn);

// ||out - ref|| / ||ref|| (ref == 0 everywhere: ||out||).
double rel_l2(const std::vector<double> &out, const std::vector<double> &ref);
// Expects out ~ ref: relative L2 error <= rel_tol and every element within
// abs_tol + rel_tol * |ref|; NaN only where ref is NaN.
void expect_close(const std::vector<double> &out, const std::vector<double> &ref, double rel_tol, double abs_tol,
                  const std::string &what);
// The relative tolerance of one rounding to `dt` (f16: 1e-3, bf16: 8e-3,
// f32: 1e-6 scaled, f64: 1e-12).
double storage_tol(anydnnDataType_t dt);
// The value `v` after a round trip through `dt`'s storage.
double round_to(anydnnDataType_t dt, double v);

}  // namespace anydnn_test

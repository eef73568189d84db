// Host buffers of one data type: random contents, poison, element access as
// double, and the relative L2 error that corr mode reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "anydnn/anydnn.h"

namespace anydnn_bench {

class Buffer {
public:
    Buffer() = default;
    // Uninitialized, 64-byte aligned storage for `count` elements of `dt`.
    Buffer(anydnnDataType_t dt, int64_t count);

    void *data() { return data_.get(); }
    const void *data() const { return data_.get(); }
    anydnnDataType_t dt() const { return dt_; }
    int64_t count() const { return count_; }
    size_t bytes() const;

    double get(int64_t i) const;
    void set(int64_t i, double v);  // rounds to the type (nearest even), saturates integers
    // Uniform in [lo, hi), or (signed) with a random sign; seeded, so every
    // library sees the same inputs.
    void fill_uniform(uint64_t seed, double lo, double hi, bool random_sign = false);
    // All bits set: NaN for the floating types, so an unwritten output fails
    // the comparison.
    void poison();
    void copy_from(const Buffer &other);

private:
    struct Free {
        void operator()(void *p) const;
    };
    std::unique_ptr<void, Free> data_;
    anydnnDataType_t dt_ = ANYDNN_DATA_FLOAT;
    int64_t count_ = 0;
};

// ||out - ref|| / ||ref|| over every element (||out - ref|| when ref is all
// zeros); infinity when an element is NaN in one and not the other.
double rel_l2_error(const Buffer &out, const Buffer &ref);

}  // namespace anydnn_bench

namespace anydnn_bench {

// The relative L2 error corr mode accepts for results stored as `dt` when
// the two libraries may round differently: a few units of the type's last
// place (f64 results are compared with anydnn's own generic path only).
double storage_tolerance(anydnnDataType_t dt);

}  // namespace anydnn_bench

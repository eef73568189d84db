// The row kernels of the RNN: moving rows between the caller's buffers
// (any of the four data types, any row order) and the compute-type buffers
// of the recurrent plan, filling rows, adding rows. Declarations only;
// src/cpu/kernels/rnn_rows.hpp implements them once per ISA level.
#pragma once

#include <cstdint>

#include "anydnn/anydnn_core.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"

namespace anydnn::cpu {

// Row r of dst = row r of src, converted from src_dt to dst_dt (FLOAT,
// DOUBLE, HALF, BFLOAT16). Row r starts at element src_off[r] of src (or
// r * src_ld when src_off is NULL), likewise for dst.
struct RnnCopyArgs {
    anydnnDataType_t src_dt = ANYDNN_DATA_FLOAT, dst_dt = ANYDNN_DATA_FLOAT;
    const void *src = nullptr;
    void *dst = nullptr;
    const int64_t *src_off = nullptr, *dst_off = nullptr;
    int64_t src_ld = 0, dst_ld = 0;
    int64_t rows = 0, cols = 0;
};

struct RnnRowsKernels {
    void (*copy)(const ExecContext &, const RnnCopyArgs &);
    // Every element of rows [0, rows) x [0, cols) of dst (row starts as
    // copy's dst) = value.
    void (*fill)(const ExecContext &, anydnnDataType_t dt, void *dst, const int64_t *dst_off, int64_t dst_ld,
                 int64_t rows, int64_t cols, double value);
    // out = a + b, rows x cols of dt (FLOAT or DOUBLE); ldb 0 broadcasts b's
    // first row. out may be a (same ld).
    void (*add)(const ExecContext &, anydnnDataType_t dt, int64_t rows, int64_t cols, const void *a, int64_t lda,
                const void *b, int64_t ldb, void *out, int64_t ldo);
};

ANYDNN_DECLARE_ISA_TABLE(RnnRowsKernels, rnn_rows)

}  // namespace anydnn::cpu

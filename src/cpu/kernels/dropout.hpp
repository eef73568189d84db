// Dropout kernels, compiled once per ISA level.
//
// The mask comes from Philox4x32-10 (Salmon et al., "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011), a counter-based generator: element e's word
// is a pure function of (seed, call, e), computed with 32-bit integer
// arithmetic only, so the mask is bitwise the same on every ISA level and
// for every thread count or split. Sixteen counters run side by side (one
// vector lane each: vpmuludq for the 32 x 32 -> 64-bit products), giving 64
// elements' words per step.
#include "cpu/dropout.hpp"
#include "cpu/kernels/util/common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int64_t kBlocks = 16;            // Philox counters per step
constexpr int64_t kChunk = 4 * kBlocks;    // elements per step
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // the round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // the key schedule's Weyl increments

// The words of counters {block + i, call} for i < kBlocks, word w of counter i at out[4 i + w].
inline void philox_chunk(uint64_t block, uint64_t call, uint64_t seed, uint32_t *__restrict out) {
    uint32_t x0[kBlocks], x1[kBlocks], x2[kBlocks], x3[kBlocks];
#pragma GCC unroll 1
    for (int64_t i = 0; i < kBlocks; ++i) {
        const uint64_t b = block + static_cast<uint64_t>(i);
        x0[i] = static_cast<uint32_t>(b);
        x1[i] = static_cast<uint32_t>(b >> 32);
        x2[i] = static_cast<uint32_t>(call);
        x3[i] = static_cast<uint32_t>(call >> 32);
    }
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    // Every lane loop stays a loop (ARCHITECTURE.md, pooling's rule): GCC
    // unrolled these constant-count loops completely before its vectorizer
    // ran and left Philox scalar, 8 ns an element.
#pragma GCC unroll 1
    for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 1
        for (int64_t i = 0; i < kBlocks; ++i) {
            const uint64_t p0 = static_cast<uint64_t>(kM0) * x0[i], p1 = static_cast<uint64_t>(kM1) * x2[i];
            const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x1[i] ^ k0;
            const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x3[i] ^ k1;
            x1[i] = static_cast<uint32_t>(p1);
            x3[i] = static_cast<uint32_t>(p0);
            x0[i] = y0;
            x2[i] = y2;
        }
        k0 += kW0;
        k1 += kW1;
    }
#pragma GCC unroll 1
    for (int64_t i = 0; i < kBlocks; ++i) {
        out[4 * i] = x0[i];
        out[4 * i + 1] = x1[i];
        out[4 * i + 2] = x2[i];
        out[4 * i + 3] = x3[i];
    }
}

void philox(uint64_t block, uint64_t call, uint64_t seed, int64_t blocks, uint32_t *out) {
    uint32_t w[kChunk];
    for (int64_t b = 0; b < blocks; b += kBlocks) {
        philox_chunk(block + static_cast<uint64_t>(b), call, seed, w);
        for (int64_t i = 0; i < kChunk && b * 4 + i < blocks * 4; ++i) out[b * 4 + i] = w[i];
    }
}

// v where the mask byte m is not 0, else +0, by the bits: as a select
// (m ? v : 0) GCC moved the load and multiply of v under the condition, and
// without masked loads (AVX2) the loop stayed scalar. A dropped inf or NaN
// gives 0, as it must (v * 0 would not).
template <class C>
inline C keep_or_zero(C v, uint8_t m) {
    if constexpr (sizeof(C) == 4) {
        return f32_from_bits(f32_bits(v) & (0u - static_cast<uint32_t>(m != 0)));
    } else {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        b &= 0ull - static_cast<uint64_t>(m != 0);
        std::memcpy(&v, &b, 8);
        return v;
    }
}

// One run of len elements, the first of stream index e0 (first + its
// row-major index); in and out step si and so elements.
template <DropoutMode Mode, bool Unit, class T, class C>
void run_elements(const DropoutArgs &a, int64_t e0, int64_t len, const T *in, int64_t si, T *out, int64_t so) {
    const C scale = static_cast<C>(a.scale);
    uint8_t *__restrict mask = a.mask + (e0 - a.first);  // the API checked that it overlaps neither tensor
    if constexpr (Mode == DropoutMode::keep_all || Mode == DropoutMode::drop_all) {
        for (int64_t j = 0; j < len; ++j) {
            store(out + j * (Unit ? 1 : so), Mode == DropoutMode::keep_all ? load<C>(in + j * (Unit ? 1 : si)) : C(0));
            mask[j] = Mode == DropoutMode::keep_all ? 1 : 0;
        }
    } else if constexpr (Mode == DropoutMode::replay) {
        for (int64_t j = 0; j < len; ++j)
            store(out + j * (Unit ? 1 : so), keep_or_zero(load<C>(in + j * (Unit ? 1 : si)) * scale, mask[j]));
    } else {
        uint32_t w[kChunk];
        // AVX2 has no unsigned compare: with the sign bits flipped, a signed
        // one orders the words the same (and the loop stays vector code).
        const int32_t threshold = static_cast<int32_t>(a.threshold ^ 0x80000000u);
        for (int64_t e = e0; e < e0 + len;) {
            const int64_t base = e / kChunk * kChunk;
            philox_chunk(static_cast<uint64_t>(base / 4), a.call, a.seed, w);
            const int64_t j0 = e - base, j1 = imin_(kChunk, e0 + len - base);
            const int64_t r = base - e0;  // run position of chunk element 0
            // Two loops: one condition feeding two selects (the mask and
            // y) made GCC branch, and the loop stayed scalar.
            for (int64_t j = j0; j < j1; ++j)
                mask[r + j] = static_cast<int32_t>(w[j] ^ 0x80000000u) >= threshold ? 1 : 0;
            for (int64_t j = j0; j < j1; ++j)
                store(out + (r + j) * (Unit ? 1 : so),
                      keep_or_zero(load<C>(in + (r + j) * (Unit ? 1 : si)) * scale, mask[r + j]));
            e = base + kChunk;
        }
    }
}

template <DropoutMode Mode, class T>
void run_typed(const ExecContext &ctx, const DropoutArgs &a) {
    using C = compute_t<T>;
    const StridedLoop &L = a.loop;
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t so = L.inner_stride(0), si = L.inner_stride(1);
    const bool unit = so == 1 && si == 1;
    // Each element's mask depends on its index only: any split gives the same result.
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        int64_t e = a.first + begin;
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t len) {
            if (unit) run_elements<Mode, true, T, C>(a, e, len, in + off[1], si, out + off[0], so);
            else run_elements<Mode, false, T, C>(a, e, len, in + off[1], si, out + off[0], so);
            e += len;
        });
    });
}

void run(const ExecContext &ctx, const DropoutArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (a.mode) {
        case DropoutMode::random: run_typed<DropoutMode::random, T>(ctx, a); break;
        case DropoutMode::keep_all: run_typed<DropoutMode::keep_all, T>(ctx, a); break;
        case DropoutMode::drop_all: run_typed<DropoutMode::drop_all, T>(ctx, a); break;
        case DropoutMode::replay: run_typed<DropoutMode::replay, T>(ctx, a); break;
        }
    });
}

}  // namespace

extern const DropoutKernels dropout = {run, philox};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS

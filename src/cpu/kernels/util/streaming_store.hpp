// Non-temporal (streaming) stores for outputs much larger than the last-level
// cache. An ordinary store to a line that is not in cache first reads the
// line (read for ownership), so an out-of-place elementwise op on a large
// tensor moves 3 tensors for the 2 it needs; a streaming store writes the
// line without reading it. The op computes a chunk into a staging buffer in
// L1 with its ordinary (vectorized) loop, then streams the buffer out
// (`stream_copy`, called by staged_out in staging.hpp). Below
// kStreamingMinBytes the output may still be in cache for the next op,
// which streaming would evict, so ordinary stores stay.
#pragma once

#include "cpu/kernels/util/common.hpp"

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#include <immintrin.h>
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {

// Half the 32 MiB L3 of the project's machine: an output this large does not
// survive in cache until the next op anyway.
constexpr int64_t kStreamingMinBytes = int64_t(16) << 20;
// Elements per staging chunk: 4 KiB of f32, well inside L1.
constexpr int64_t kStreamingChunk = 1024;
// Runs shorter than this keep ordinary stores (the aligned middle would be
// too short to pay for the staging and the fence).
constexpr int64_t kStreamingMinRun = 256;
// Streaming stores go to whole cache lines only. A line that streaming
// stores fill in part (a 32-byte aligned AVX2 run starting mid-line, or one
// whose other half ordinary stores write) leaves its write-combining buffer
// as a partial write, which costs the memory a read and a merge: on a Zen 3
// an NCHW LRN forward whose rows started 32 bytes into a line took twice
// the time of one on aligned rows.
constexpr int64_t kStreamLineBytes = 64;

inline bool line_aligned(const void *p) { return reinterpret_cast<uintptr_t>(p) % kStreamLineBytes == 0; }

// Software prefetch of a streamed source into L2 (prefetcht1). A core
// reading a stream from DRAM keeps too few lines in flight on its own: on a
// Xeon (2 cores) 256 MiB were summed at 22 GB/s, at 28 with the source
// 8 KiB ahead in L2. L2, not L1: that far ahead would evict the lines being
// read. A prefetch takes a fill buffer like a load, so loops issue one per
// line as they go; a burst of them stalls the core once the buffers are
// full (rows of 1000: a quarter of a softmax's time on 63 prefetches).
constexpr int64_t kStreamPrefetchBytes = 8192;

// Prefetches the line at address p + ahead bytes. The sum is taken on
// integers: it may lie past the end of p's object, which a prefetch
// tolerates and pointer arithmetic does not.
inline void prefetch_l2(const void *p, int64_t ahead) {
    __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(p) + uintptr_t(ahead)), 0, 2);
}

// Prefetches the line kStreamPrefetchBytes after p: called once per cache
// line of a streamed source.
inline void prefetch_stream(const void *p) { prefetch_l2(p, kStreamPrefetchBytes); }

// prefetch_stream for each line of [p, p + bytes): for a few lines only.
inline void prefetch_stream_run(const void *p, int64_t bytes) {
    for (int64_t i = 0; i < bytes; i += 64) prefetch_l2(p, i + kStreamPrefetchBytes);
}

// Whether an op writing out_bytes at out, reading the inputs at in (nullptr
// for none), should stream its output. In place (out == an input), the line
// is in cache when it is written, and a plain store costs no extra read.
inline bool use_streaming_stores(int64_t out_bytes, const void *out, const void *in0, const void *in1 = nullptr,
                                 const void *in2 = nullptr) {
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
    return out_bytes >= kStreamingMinBytes && out != in0 && out != in1 && out != in2;
#else
    (void)out_bytes, (void)out, (void)in0, (void)in1, (void)in2;
    return false;
#endif
}

// Copies n elements of src (in L1) to dst with streaming stores on dst's
// whole lines and ordinary stores on the ends.
template <class T>
inline void stream_copy(T *dst, const T *src, int64_t n) {
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
    constexpr int64_t kLine = kStreamLineBytes;
    char *d = reinterpret_cast<char *>(dst);
    const char *s = reinterpret_cast<const char *>(src);
    int64_t bytes = n * static_cast<int64_t>(sizeof(T));
    const int64_t head = imin_((kLine - static_cast<int64_t>(reinterpret_cast<uintptr_t>(d) % kLine)) % kLine, bytes);
    if (head) std::memcpy(d, s, static_cast<size_t>(head));  // a call even for 0 bytes: rows of 64 pay it
    d += head, s += head, bytes -= head;
    for (; bytes >= kLine; d += kLine, s += kLine, bytes -= kLine) {
#if ANYDNN_ISA_avx512
        _mm512_stream_si512(reinterpret_cast<__m512i *>(d), _mm512_loadu_si512(s));
#else
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s)));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + 32),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + 32)));
#endif
    }
    if (bytes) std::memcpy(d, s, static_cast<size_t>(bytes));
#else
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
#endif
}

// dst[i] = f(src[i]) with streaming stores (T float or double): a last pass
// and stream_copy in one, one store per vector fewer (Zen 4 stores a 512-bit
// vector in two cycles). f takes a T or a vector of them (GCC's vector
// operators: __m512 and friends are vector_size types), e.g. softmax's
// scaling v * k.
template <class T, class F>
inline void stream_map(T *dst, const T *src, int64_t n, F &&f) {
    int64_t i = 0;
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
    constexpr int64_t W = kVectorBytes / sizeof(T), L = kStreamLineBytes / sizeof(T);
    for (; i < n && !line_aligned(dst + i); ++i) dst[i] = f(src[i]);
    for (; i + L <= n; i += L) {
        for (int64_t j = i; j < i + L; j += W) {
#if ANYDNN_ISA_avx512
            if constexpr (sizeof(T) == 4) _mm512_stream_ps(dst + j, f(_mm512_loadu_ps(src + j)));
            else _mm512_stream_pd(dst + j, f(_mm512_loadu_pd(src + j)));
#else
            if constexpr (sizeof(T) == 4) _mm256_stream_ps(dst + j, f(_mm256_loadu_ps(src + j)));
            else _mm256_stream_pd(dst + j, f(_mm256_loadu_pd(src + j)));
#endif
        }
    }
#endif
    for (; i < n; ++i) dst[i] = f(src[i]);
}

// dst[i] = f(a[i], b[i]) with streaming stores: stream_map over two sources
// (softmax's NCHW column blocks scale each step's terms by a vector of
// per-softmax scales).
template <class T, class F>
inline void stream_map(T *dst, const T *a, const T *b, int64_t n, F &&f) {
    int64_t i = 0;
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
    constexpr int64_t W = kVectorBytes / sizeof(T), L = kStreamLineBytes / sizeof(T);
    for (; i < n && !line_aligned(dst + i); ++i) dst[i] = f(a[i], b[i]);
    for (; i + L <= n; i += L) {
        for (int64_t j = i; j < i + L; j += W) {
#if ANYDNN_ISA_avx512
            if constexpr (sizeof(T) == 4) _mm512_stream_ps(dst + j, f(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j)));
            else _mm512_stream_pd(dst + j, f(_mm512_loadu_pd(a + j), _mm512_loadu_pd(b + j)));
#else
            if constexpr (sizeof(T) == 4) _mm256_stream_ps(dst + j, f(_mm256_loadu_ps(a + j), _mm256_loadu_ps(b + j)));
            else _mm256_stream_pd(dst + j, f(_mm256_loadu_pd(a + j), _mm256_loadu_pd(b + j)));
#endif
        }
    }
#endif
    for (; i < n; ++i) dst[i] = f(a[i], b[i]);
}

// Stores the vector v (a GCC vector type of kVectorBytes) at p, which is
// vector-aligned, with a streaming store.
template <class V>
inline void stream_vector(void *p, V v) {
    static_assert(sizeof(V) == kVectorBytes);
#if ANYDNN_ISA_avx512
    _mm512_stream_si512(static_cast<__m512i *>(p), reinterpret_cast<__m512i>(v));
#elif ANYDNN_ISA_avx2
    _mm256_stream_si256(static_cast<__m256i *>(p), reinterpret_cast<__m256i>(v));
#else
    std::memcpy(p, &v, sizeof v);
#endif
}

// Orders this thread's streaming stores before its later stores (and before
// the barrier that ends a parallel region): streaming stores are weakly
// ordered, so every thread that streamed fences before the barrier.
inline void streaming_fence() {
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
    _mm_sfence();
#endif
}

}  // namespace anydnn::cpu::ANYDNN_ISA_NS

#include "core/peak.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/buffer.hpp"
#include "core/peak_fma.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#include <emmintrin.h>
#define ANYDNN_BENCH_X86 1
#endif

namespace anydnn_bench {
namespace {

constexpr int kFmaReps = 5;
constexpr int kStreamReps = 10;  // STREAM's NTIMES
constexpr int64_t kChunk = 16;   // floats per 64-byte line: thread ranges start on a line

double now_s() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// Scalar stand-in where no vector kernel is compiled: not a peak, but the
// tool still runs.
float f32_fma_chain__generic(int64_t iters, float x) {
    float acc[8];
    for (int j = 0; j < 8; ++j) acc[j] = 1.0f + 0.01f * float(j);
    for (int64_t i = 0; i < iters; ++i)
        for (float &a : acc) a = a * x + 1e-7f;
    float s = 0;
    for (float a : acc) s += a;
    return s;
}

double measure_fma(const FmaKernel &k, int threads, double rep_time_s) {
    const float x = 0.9999999f;
    std::vector<float> sink(static_cast<size_t>(threads));
    auto run = [&](int64_t iters) {
        const double t0 = now_s();
#pragma omp parallel num_threads(threads)
        sink[static_cast<size_t>(omp_get_thread_num())] = k.run(iters, x);
        return now_s() - t0;
    };
    int64_t iters = 1 << 12;
    while (run(iters) < rep_time_s / 4 && iters < (int64_t{1} << 40)) iters *= 2;
    iters *= 4;
    double best = 1e30;
    for (int r = 0; r < kFmaReps; ++r) best = std::min(best, run(iters));
    return double(k.flops_per_iter) * double(iters) * threads / best * 1e-9;
}

// The kernels below add 0.0f to the copied value: x + 0.0f is not always x
// (-0.0f becomes +0.0f), so compilers cannot turn the loop into a memcpy call,
// whose large-size path would use non-temporal stores of its own.
template <bool NonTemporal>
void copy_range(const float *a, float *c, int64_t begin, int64_t end) {
#if ANYDNN_BENCH_X86
    const __m128 zero = _mm_setzero_ps();
    for (int64_t i = begin; i < end; i += 4) {
        const __m128 v = _mm_add_ps(_mm_load_ps(a + i), zero);
        if constexpr (NonTemporal)
            _mm_stream_ps(c + i, v);
        else
            _mm_store_ps(c + i, v);
    }
#else
    for (int64_t i = begin; i < end; ++i) c[i] = a[i] + 0.0f;
#endif
}

template <bool NonTemporal>
void triad_range(float *a, const float *b, const float *c, float s, int64_t begin, int64_t end) {
#if ANYDNN_BENCH_X86
    const __m128 vs = _mm_set1_ps(s);
    for (int64_t i = begin; i < end; i += 4) {
        const __m128 v = _mm_add_ps(_mm_load_ps(b + i), _mm_mul_ps(vs, _mm_load_ps(c + i)));
        if constexpr (NonTemporal)
            _mm_stream_ps(a + i, v);
        else
            _mm_store_ps(a + i, v);
    }
#else
    for (int64_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
#endif
}

// Runs fn(begin, end) on each thread's part of [0, n), the same split every
// time, so each thread touches the pages it first wrote.
template <class Fn>
double timed_parallel(int threads, int64_t n, Fn fn) {
    const double t0 = now_s();
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
        const int64_t chunks = n / kChunk;
        fn(chunks * t / team * kChunk, chunks * (t + 1) / team * kChunk);
    }
#if ANYDNN_BENCH_X86
    _mm_sfence();
#endif
    return now_s() - t0;
}

}  // namespace

FmaKernel best_fma_kernel() {
#if ANYDNN_BENCH_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return {"avx512", kFmaChainsAvx512 * 16 * 2, f32_fma_chain__avx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return {"avx2", kFmaChainsAvx2 * 8 * 2, f32_fma_chain__avx2};
#endif
    return {"generic", 8 * 2, f32_fma_chain__generic};
}

double Peak::bandwidth_gbs() const { return std::max({copy_gbs, copy_nt_gbs, triad_gbs, triad_nt_gbs}); }

std::string cpu_model() {
#if ANYDNN_BENCH_X86
    unsigned regs[12];
    unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
    if (max_ext >= 0x80000004u) {
        for (unsigned i = 0; i < 3; ++i)
            __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
        std::string s(reinterpret_cast<const char *>(regs), sizeof regs);
        s = s.c_str();  // stops at the first NUL
        const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
        if (b != std::string::npos) return s.substr(b, e - b + 1);
    }
#endif
    return "unknown CPU";
}

int cpu_count() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

double other_runnable_threads() {
    constexpr int kSamples = 10;
    int total = 0;
    for (int i = 0; i < kSamples; ++i) {
        FILE *f = std::fopen("/proc/loadavg", "r");
        if (f == nullptr) return -1;
        double l1, l5, l15;
        int running = 0;
        const int got = std::fscanf(f, "%lf %lf %lf %d/", &l1, &l5, &l15, &running);
        std::fclose(f);
        if (got != 4) return -1;
        total += running - 1;  // this thread is running while it reads
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return double(total) / kSamples;
}

std::string default_peak_file() {
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] != '\0')
        return std::string(xdg) + "/anydnn/bench-peak.txt";
    if (const char *home = std::getenv("HOME"); home != nullptr && home[0] != '\0')
        return std::string(home) + "/.cache/anydnn/bench-peak.txt";
    return "bench-peak.txt";
}

Peak measure_peak(int threads, int array_mib, double min_time_s) {
    Peak p;
    p.threads = threads;
    p.array_mib = array_mib;
    const FmaKernel k = best_fma_kernel();
    p.fma_isa = k.isa;
    p.fma_gflops = measure_fma(k, threads, std::max(min_time_s / kFmaReps, 0.002));

    const int64_t n = int64_t{array_mib} * (1 << 20) / int64_t{sizeof(float)};
    Buffer ba(ANYDNN_DATA_FLOAT, n), bb(ANYDNN_DATA_FLOAT, n), bc(ANYDNN_DATA_FLOAT, n);
    float *a = static_cast<float *>(ba.data()), *b = static_cast<float *>(bb.data()),
          *c = static_cast<float *>(bc.data());
    timed_parallel(threads, n, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
            a[i] = 1.0f;
            b[i] = 2.0f;
            c[i] = 0.5f;
        }
    });
    auto best = [&](double bytes, auto kernel) {
        double t = 1e30;
        for (int r = 0; r < kStreamReps; ++r) t = std::min(t, timed_parallel(threads, n, kernel));
        return bytes / t * 1e-9;
    };
    const double bytes2 = 2.0 * double(n) * sizeof(float), bytes3 = 1.5 * bytes2;
    p.copy_gbs = best(bytes2, [&](int64_t lo, int64_t hi) { copy_range<false>(a, c, lo, hi); });
    p.triad_gbs = best(bytes3, [&](int64_t lo, int64_t hi) { triad_range<false>(a, b, c, 3.0f, lo, hi); });
#if ANYDNN_BENCH_X86
    p.copy_nt_gbs = best(bytes2, [&](int64_t lo, int64_t hi) { copy_range<true>(a, c, lo, hi); });
    p.triad_nt_gbs = best(bytes3, [&](int64_t lo, int64_t hi) { triad_range<true>(a, b, c, 3.0f, lo, hi); });
#endif
    return p;
}

namespace {

std::string format_peak(const Peak &p) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "threads=%d fma_isa=%s fma_gflops=%.1f array_mib=%d copy_gbs=%.2f copy_nt_gbs=%.2f "
                  "triad_gbs=%.2f triad_nt_gbs=%.2f",
                  p.threads, p.fma_isa.c_str(), p.fma_gflops, p.array_mib, p.copy_gbs, p.copy_nt_gbs, p.triad_gbs,
                  p.triad_nt_gbs);
    return line;
}

std::optional<Peak> parse_peak(const std::string &line) {
    Peak p;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
        const size_t eq = w.find('=');
        if (eq == std::string::npos) return std::nullopt;
        const std::string k = w.substr(0, eq), v = w.substr(eq + 1);
        const double d = std::atof(v.c_str());
        if (k == "threads") p.threads = static_cast<int>(d);
        else if (k == "fma_isa") p.fma_isa = v;
        else if (k == "fma_gflops") p.fma_gflops = d;
        else if (k == "array_mib") p.array_mib = static_cast<int>(d);
        else if (k == "copy_gbs") p.copy_gbs = d;
        else if (k == "copy_nt_gbs") p.copy_nt_gbs = d;
        else if (k == "triad_gbs") p.triad_gbs = d;
        else if (k == "triad_nt_gbs") p.triad_nt_gbs = d;
    }
    if (p.threads <= 0) return std::nullopt;
    return p;
}

const char kCpuKey[] = "cpu: ";

// The entries of `path` measured on this CPU model.
std::vector<Peak> load_all(const std::string &path) {
    std::vector<Peak> out;
    std::ifstream in(path);
    bool same_cpu = false;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        if (line.rfind(kCpuKey, 0) == 0) {
            same_cpu = line.substr(sizeof kCpuKey - 1) == cpu_model();
        } else if (same_cpu) {
            if (auto p = parse_peak(line)) out.push_back(*p);
        }
    }
    return out;
}

}  // namespace

std::optional<Peak> load_peak(const std::string &path, int threads) {
    for (const Peak &p : load_all(path))
        if (p.threads == threads) return p;
    return std::nullopt;
}

bool save_peak(const std::string &path, const Peak &p) {
    std::vector<Peak> all = load_all(path);
    std::erase_if(all, [&](const Peak &q) { return q.threads == p.threads; });
    all.push_back(p);
    std::sort(all.begin(), all.end(), [](const Peak &x, const Peak &y) { return x.threads < y.threads; });
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::ofstream out(path);
    if (!out) return false;
    out << "# anydnn-bench --peak results; delete this file to measure again\n";
    out << kCpuKey << cpu_model() << "\n";
    for (const Peak &q : all) out << format_peak(q) << "\n";
    return static_cast<bool>(out);
}

std::string describe(const Peak &p) {
    char s[512];
    std::snprintf(s, sizeof s,
                  "%d thread%s: fp32 FMA peak %.1f GFLOP/s (%s); bandwidth on %d MiB arrays: copy %.1f GB/s, "
                  "copy (non-temporal stores) %.1f, triad %.1f, triad (non-temporal) %.1f",
                  p.threads, p.threads == 1 ? "" : "s", p.fma_gflops, p.fma_isa.c_str(), p.array_mib, p.copy_gbs,
                  p.copy_nt_gbs, p.triad_gbs, p.triad_nt_gbs);
    return s;
}

}  // namespace anydnn_bench

// Splitting work over the handle's OpenMP threads.
#pragma once

#include <omp.h>

#include <cstdint>

namespace anydnn::cpu {

// What a kernel needs to know about where it runs.
struct ExecContext {
    int threads = 1;
};

// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to
// ctx.threads threads, each range at least `grain` long (so small problems
// stay on the calling thread and skip OpenMP's fork cost). The split depends
// only on n, grain and the thread count, never on timing.
template <class Fn>
void parallel_ranges(const ExecContext &ctx, int64_t n, int64_t grain, Fn &&fn) {
    if (n <= 0) return;
    int64_t nt = grain > 0 ? n / grain : n;
    if (nt > ctx.threads) nt = ctx.threads;
    if (nt <= 1) {
        fn(int64_t{0}, n);
        return;
    }
#pragma omp parallel num_threads(static_cast<int>(nt))
    {
        const int64_t t = omp_get_thread_num();
        const int64_t team = omp_get_num_threads();
        const int64_t begin = n * t / team, end = n * (t + 1) / team;
        if (begin < end) fn(begin, end);
    }
}

// Calls work(t) once for each t in [0, workers) (workers >= 1), on a team of
// up to `workers` threads; a smaller team than asked for (nested
// parallelism) takes several parts each. For kernels that give each part its
// own buffers (indexed by t) and a split fixed in advance.
template <class Fn>
void parallel_workers(int workers, Fn &&work) {
    if (workers <= 1) {
        work(0);
        return;
    }
#pragma omp parallel num_threads(workers)
    {
        for (int t = omp_get_thread_num(); t < workers; t += omp_get_num_threads()) work(t);
    }
}

}  // namespace anydnn::cpu

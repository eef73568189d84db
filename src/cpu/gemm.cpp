#include "cpu/gemm.hpp"

#include <memory>
#include <type_traits>

namespace anydnn::cpu {
namespace {

// The calling thread's cached workspace, at least `bytes` long.
void *cached_workspace(std::size_t bytes) {
    thread_local std::unique_ptr<unsigned char[]> buffer;
    thread_local std::size_t capacity = 0;
    if (capacity < bytes) {
        buffer.reset();  // free the old one first: the peak is the new size only
        capacity = 0;
        buffer.reset(new unsigned char[bytes]);
        capacity = bytes;
    }
    return buffer.get();
}

template <class Args>
void run_gemm(Isa isa, const ExecContext &ctx, const Args &a) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(a.c)>>;
    void *ws = cached_workspace(gemm_workspace_size(isa, ctx, a));
    if constexpr (requires { a.batch; }) gemm_kernels<T>(isa).brgemm(ctx, a, ws);
    else gemm_kernels<T>(isa).gemm(ctx, a, ws);
}

}  // namespace

void gemm(Isa isa, const ExecContext &ctx, const GemmArgs<float> &a) { run_gemm(isa, ctx, a); }
void gemm(Isa isa, const ExecContext &ctx, const GemmArgs<double> &a) { run_gemm(isa, ctx, a); }
void brgemm(Isa isa, const ExecContext &ctx, const BrgemmArgs<float> &a) { run_gemm(isa, ctx, a); }
void brgemm(Isa isa, const ExecContext &ctx, const BrgemmArgs<double> &a) { run_gemm(isa, ctx, a); }

}  // namespace anydnn::cpu

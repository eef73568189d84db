#include "core/isa.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(_M_X64)
#define ANYDNN_X86_64 1
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

namespace anydnn {
namespace {

struct CpuInfo {
    bool avx = false, avx2 = false, fma = false, f16c = false;
    bool avx512f = false, avx512bw = false, avx512dq = false, avx512vl = false;
    bool os_avx = false, os_avx512 = false;
    std::string features;
};

#if ANYDNN_X86_64
void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
#if defined(_MSC_VER)
    int regs[4];
    __cpuidex(regs, static_cast<int>(leaf), static_cast<int>(sub));
    for (int i = 0; i < 4; ++i) r[i] = static_cast<unsigned>(regs[i]);
#else
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
#endif
}

unsigned long long xgetbv0() {
#if defined(_MSC_VER)
    return _xgetbv(0);
#else
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<unsigned long long>(hi) << 32) | lo;
#endif
}
#endif

CpuInfo read_cpu() {
    CpuInfo c;
#if ANYDNN_X86_64
    unsigned r[4];
    cpuid(0, 0, r);
    const unsigned max_leaf = r[0];
    cpuid(1, 0, r);
    const bool osxsave = (r[2] >> 27) & 1;
    c.avx = (r[2] >> 28) & 1;
    c.fma = (r[2] >> 12) & 1;
    c.f16c = (r[2] >> 29) & 1;
    if (osxsave) {
        const unsigned long long xcr0 = xgetbv0();
        c.os_avx = (xcr0 & 0x6) == 0x6;              // XMM and YMM state
        c.os_avx512 = c.os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM0-15 high, ZMM16-31
    }
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        c.avx2 = (r[1] >> 5) & 1;
        c.avx512f = (r[1] >> 16) & 1;
        c.avx512dq = (r[1] >> 17) & 1;
        c.avx512bw = (r[1] >> 30) & 1;
        c.avx512vl = (r[1] >> 31) & 1;
    }
    const struct { bool on; const char *name; } names[] = {
        {c.avx, "avx"}, {c.avx2, "avx2"}, {c.fma, "fma"}, {c.f16c, "f16c"}, {c.avx512f, "avx512f"},
        {c.avx512bw, "avx512bw"}, {c.avx512dq, "avx512dq"}, {c.avx512vl, "avx512vl"},
    };
    for (const auto &n : names) {
        if (!n.on) continue;
        if (!c.features.empty()) c.features += ' ';
        c.features += n.name;
    }
#endif
    return c;
}

const CpuInfo &cpu() {
    static const CpuInfo info = read_cpu();
    return info;
}

}  // namespace

Isa cpu_isa() {
    const CpuInfo &c = cpu();
#if ANYDNN_X86_64
    const bool has_avx2 = c.os_avx && c.avx && c.avx2 && c.fma && c.f16c;
    if (has_avx2 && c.os_avx512 && c.avx512f && c.avx512bw && c.avx512dq && c.avx512vl) return Isa::avx512;
    if (has_avx2) return Isa::avx2;
#endif
    (void)c;
    return Isa::generic;
}

Isa detected_isa() {
    const Isa isa = cpu_isa();
    const Isa compiled = static_cast<Isa>(ANYDNN_MAX_COMPILED_ISA);
    return isa < compiled ? isa : compiled;
}

Isa selected_isa() {
    Isa isa = detected_isa();
    Isa cap;
    if (parse_isa(std::getenv("ANYDNN_MAX_ISA"), &cap) && cap < isa) isa = cap;
    return isa;
}

const char *isa_name(Isa isa) {
    switch (isa) {
    case Isa::generic: return "generic";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    }
    return "?";
}

bool parse_isa(const char *text, Isa *isa) {
    if (text == nullptr) return false;
    for (Isa i : {Isa::generic, Isa::avx2, Isa::avx512}) {
        if (std::strcmp(text, isa_name(i)) == 0) {
            *isa = i;
            return true;
        }
    }
    return false;
}

const char *cpu_features() { return cpu().features.c_str(); }

}  // namespace anydnn

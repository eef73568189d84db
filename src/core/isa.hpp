// CPU ISA levels and their run-time detection.
#pragma once

namespace anydnn {

// Ordered: a level implies every level below it.
enum class Isa { generic = 0, avx2 = 1, avx512 = 2 };

// The best level this CPU and OS support (cpuid + XCR0), whatever this build
// compiled in. Computed once.
Isa cpu_isa();
// cpu_isa(), not above the highest level this build compiled in (its
// ANYDNN_CPU_ISA).
Isa detected_isa();
// The level a new handle uses: detected_isa() capped by ANYDNN_MAX_ISA
// (generic|avx2|avx512; read at each call, so a test may change it).
Isa selected_isa();
const char *isa_name(Isa isa);
// Parses "generic", "avx2", "avx512"; false for anything else.
bool parse_isa(const char *text, Isa *isa);
// A space-separated list of the CPU features that matter to anydnn, e.g.
// "avx avx2 fma f16c avx512f avx512bw avx512dq avx512vl".
const char *cpu_features();

}  // namespace anydnn

/* anydnn_version.h: the version of the anydnn headers.
 *
 * ANYDNN_VERSION is MAJOR * 10000 + MINOR * 100 + PATCHLEVEL. anydnnGetVersion()
 * returns the same number for the library that was actually loaded; the two
 * differ when headers of one release are used with the library of another.
 *
 * Two guards keep such a mix from failing late with a wrong result or
 * "symbol not found":
 * - the library's symbols carry the version node ANYDNN_<MAJOR>.0 (ELF symbol
 *   versioning), so the dynamic loader refuses a library of another major
 *   version up front: "version `ANYDNN_1.0' not found (required by app)";
 * - anydnnCreate and anydnnCreateEx are macros (anydnn_core.h) that pass
 *   ANYDNN_VERSION to the library, which answers VERSION_MISMATCH, naming both
 *   versions and the path of the loaded library, when the program was
 *   compiled against another major version or a newer minor version than the
 *   library's (a program that dlopen()s the library bypasses the loader's
 *   check; this one still catches it).
 */
#ifndef ANYDNN_VERSION_H_
#define ANYDNN_VERSION_H_

#define ANYDNN_MAJOR 1
#define ANYDNN_MINOR 0
#define ANYDNN_PATCHLEVEL 0

#define ANYDNN_VERSION (ANYDNN_MAJOR * 10000 + ANYDNN_MINOR * 100 + ANYDNN_PATCHLEVEL)

#endif /* ANYDNN_VERSION_H_ */

/* anydnn_version.h: the version of the anydnn headers.
 *
 * ANYDNN_VERSION is MAJOR * 10000 + MINOR * 100 + PATCHLEVEL. anydnnGetVersion()
 * returns the same number for the library that was actually loaded; the two
 * differ when headers of one release are used with the library of another.
 */
#ifndef ANYDNN_VERSION_H_
#define ANYDNN_VERSION_H_

#define ANYDNN_MAJOR 1
#define ANYDNN_MINOR 0
#define ANYDNN_PATCHLEVEL 0

#define ANYDNN_VERSION (ANYDNN_MAJOR * 10000 + ANYDNN_MINOR * 100 + ANYDNN_PATCHLEVEL)

#endif /* ANYDNN_VERSION_H_ */

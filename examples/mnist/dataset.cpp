#include "dataset.hpp"

#include <zlib.h>

#include <fstream>
#include <memory>
#include <stdexcept>

namespace mnist {

namespace {

// gzread reads plain files too, so one reader serves .gz and unpacked files.
class GzFile {
public:
    explicit GzFile(const std::string &path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
        if (f_ == nullptr) throw std::runtime_error(path + ": cannot open");
    }
    ~GzFile() { gzclose(f_); }
    GzFile(const GzFile &) = delete;
    GzFile &operator=(const GzFile &) = delete;

    void read(void *dst, size_t bytes) {
        if (gzread(f_, dst, static_cast<unsigned>(bytes)) != static_cast<int>(bytes))
            throw std::runtime_error(path_ + ": truncated");
    }
    uint32_t big_endian_u32() {
        unsigned char b[4];
        read(b, 4);
        return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    }
    const std::string &path() const { return path_; }

private:
    std::string path_;
    gzFile f_;
};

void expect(bool ok, const std::string &path, const std::string &what) {
    if (!ok) throw std::runtime_error(path + ": " + what);
}

}  // namespace

Digits read_idx(const std::string &images_path, const std::string &labels_path) {
    GzFile images(images_path), labels(labels_path);
    expect(images.big_endian_u32() == 0x803, images_path, "not an IDX images file (magic 0x803)");
    const uint32_t count = images.big_endian_u32();
    const uint32_t rows = images.big_endian_u32(), cols = images.big_endian_u32();
    expect(rows == kSide && cols == kSide, images_path, "digits are not 28 x 28");
    expect(labels.big_endian_u32() == 0x801, labels_path, "not an IDX labels file (magic 0x801)");
    expect(labels.big_endian_u32() == count, labels_path, "label count differs from the image count");
    Digits d;
    std::vector<uint8_t> pixels(static_cast<size_t>(count) * kPixels);
    images.read(pixels.data(), pixels.size());
    d.labels.resize(count);
    labels.read(d.labels.data(), count);
    for (uint8_t l : d.labels) expect(l < 10, labels_path, "a label is not a digit");
    d.images.resize(pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i) d.images[i] = static_cast<float>(pixels[i]) / 255.0f;
    return d;
}

Digits slice(const Digits &d, int first, int count) {
    Digits s;
    s.images.assign(d.images.begin() + static_cast<ptrdiff_t>(first) * kPixels,
                    d.images.begin() + static_cast<ptrdiff_t>(first + count) * kPixels);
    s.labels.assign(d.labels.begin() + first, d.labels.begin() + first + count);
    return s;
}

std::vector<float> read_pgm(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    expect(in.good(), path, "cannot open");
    std::string magic;
    int w = 0, h = 0, maxval = 0;
    in >> magic >> w >> h >> maxval;
    expect(magic == "P5", path, "not a binary PGM (P5)");
    expect(w == kSide && h == kSide, path, "the image is " + std::to_string(w) + " x " + std::to_string(h) +
                                               ", not 28 x 28");
    expect(maxval > 0 && maxval < 256, path, "only 8-bit PGMs are read");
    in.get();  // the single whitespace after maxval
    std::vector<unsigned char> px(kPixels);
    in.read(reinterpret_cast<char *>(px.data()), kPixels);
    expect(in.gcount() == kPixels, path, "truncated");
    std::vector<float> v(kPixels);
    for (int i = 0; i < kPixels; ++i) v[i] = static_cast<float>(px[i]) / static_cast<float>(maxval);
    return v;
}

}  // namespace mnist

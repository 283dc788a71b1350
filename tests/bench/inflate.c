/*
 * tests/bench/inflate.c — the inflaters Debian packages, side by side on
 * the same files: zlib (gzread, as the analyzer read before), libdeflate
 * (whole buffers only: the file and its whole content in memory) and
 * ISA-L's igzip (streaming, as common/gzip_file.c reads). Prints the best
 * of ROUNDS wall times for decompressing every file given, and the bytes.
 * Built and run by scripts/bench analyzer; not part of the product.
 *
 *   inflate ROUNDS FILE.gz...
 */
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define WINDOW (1u << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        exit(1);
    unsigned char *buf = malloc((size_t)st.st_size);
    *len = (size_t)read(fd, buf, (size_t)st.st_size);
    close(fd);
    return buf;
}

static size_t with_zlib(const char *path, char *out)
{
    gzFile gz = gzopen(path, "rb");
    gzbuffer(gz, 1 << 17);
    size_t total = 0;
    int n;
    while ((n = gzread(gz, out, WINDOW)) > 0)
        total += (size_t)n;
    gzclose(gz);
    return total;
}

static size_t with_libdeflate(const char *path, char *out)
{
    (void)out;
    size_t len, got = 0;
    unsigned char *in = slurp(path, &len);
    uint32_t isize;
    memcpy(&isize, in + len - 4, 4);
    char *whole = malloc(isize);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (libdeflate_gzip_decompress(d, in, len, whole, isize, &got) != LIBDEFLATE_SUCCESS)
        exit(1);
    libdeflate_free_decompressor(d);
    free(whole);
    free(in);
    return got;
}

static size_t with_igzip(const char *path, char *out)
{
    static unsigned char in[256u << 10];
    int fd = open(path, O_RDONLY);
    struct inflate_state *s = malloc(sizeof(*s));
    isal_inflate_init(s);
    s->crc_flag = ISAL_GZIP;
    size_t total = 0;
    while (s->block_state != ISAL_BLOCK_FINISH) {
        if (s->avail_in == 0) {
            ssize_t n = read(fd, in, sizeof(in));
            if (n <= 0)
                break;
            s->next_in = in;
            s->avail_in = (uint32_t)n;
        }
        s->next_out = (uint8_t *)out;
        s->avail_out = WINDOW;
        if (isal_inflate(s) != ISAL_DECOMP_OK)
            exit(1);
        total += WINDOW - s->avail_out;
    }
    free(s);
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int rounds = atoi(argv[1]);
    static char out[WINDOW];
    struct {
        const char *name;
        size_t (*run)(const char *, char *);
    } inflaters[] = {
        {"zlib (gzread)", with_zlib},
        {"libdeflate (whole files)", with_libdeflate},
        {"ISA-L igzip (streamed)", with_igzip},
    };
    for (size_t i = 0; i < sizeof(inflaters) / sizeof(inflaters[0]); i++) {
        double best = 1e9;
        size_t bytes = 0;
        for (int r = 0; r < rounds; r++) {
            double t = now();
            bytes = 0;
            for (int f = 2; f < argc; f++)
                bytes += inflaters[i].run(argv[f], out);
            if (now() - t < best)
                best = now() - t;
        }
        printf("%-26s %6.3f s  %7.0f MB/s  (%zu bytes)\n", inflaters[i].name, best,
               (double)bytes / 1e6 / best, bytes);
    }
    return 0;
}

/*
 * attach/elf_symbols.h — a symbol's address in an ELF file on disk.
 *
 * Owns: reading an executable's or shared library's dynamic symbol table
 * (.dynsym, what dlsym would find) and its first loadable segment, so
 * that rperf-attach can tell where a symbol lies in another process that
 * mapped the file. 64-bit little-endian ELF only (this machine's).
 */
#ifndef RPERF_ATTACH_ELF_SYMBOLS_H
#define RPERF_ATTACH_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The defined dynamic symbol `name` of file `path`: its value (an address
 * relative to the file's link base) into *value. The link base is the
 * page-aligned address of the first loadable segment, into *base (0 for
 * position-independent files). False when the file is not such an ELF or
 * does not define the symbol. */
bool rp_elf_dynamic_symbol(const char *path, const char *name, uint64_t *value, uint64_t *base);

/* The first place in the file's executable segments holding the `n`
 * bytes of `code`: its address relative to the link base into *value,
 * the link base into *base, as above. */
bool rp_elf_find_code(const char *path, const void *code, size_t n, uint64_t *value, uint64_t *base);

#endif

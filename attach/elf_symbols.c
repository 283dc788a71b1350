/*
 * attach/elf_symbols.c — dynamic symbols of an ELF file. See elf_symbols.h.
 */
#include "elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct image {
    const unsigned char *bytes;
    size_t size;
} image;

/* A pointer to `n` bytes at `offset` inside the image, or NULL. */
static const void *at(const image *im, uint64_t offset, uint64_t n)
{
    return offset <= im->size && n <= im->size - offset ? im->bytes + offset : NULL;
}

static bool first_load_base(const image *im, const Elf64_Ehdr *eh, uint64_t *base)
{
    const Elf64_Phdr *ph = at(im, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
    if (!ph || eh->e_phentsize != sizeof(Elf64_Phdr))
        return false;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            uint64_t align = ph[i].p_align ? ph[i].p_align : 4096;
            *base = ph[i].p_vaddr & ~(align - 1);
            return true;
        }
    return false;
}

static bool find_in_dynsym(const image *im, const Elf64_Ehdr *eh, const char *name, uint64_t *value)
{
    const Elf64_Shdr *sh = at(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
    if (!sh || eh->e_shentsize != sizeof(Elf64_Shdr))
        return false;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Sym *syms = at(im, sh[i].sh_offset, sh[i].sh_size);
        const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
        const char *names = at(im, strtab->sh_offset, strtab->sh_size);
        if (!syms || !names)
            return false;
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count; k++) {
            if (syms[k].st_shndx == SHN_UNDEF || syms[k].st_name >= strtab->sh_size)
                continue;
            const char *sym = names + syms[k].st_name;
            size_t room = strtab->sh_size - syms[k].st_name;
            if (strnlen(sym, room) < room && strcmp(sym, name) == 0) {
                *value = syms[k].st_value;
                return true;
            }
        }
    }
    return false;
}

/* Maps the whole file read-only into *im; false when it is not a 64-bit
 * little-endian ELF file. */
static bool map_elf(const char *path, image *im)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    im->bytes = map;
    im->size = (size_t)st.st_size;
    const Elf64_Ehdr *eh = map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_ident[EI_DATA] == ELFDATA2LSB)
        return true;
    munmap(map, im->size);
    return false;
}

bool rp_elf_dynamic_symbol(const char *path, const char *name, uint64_t *value, uint64_t *base)
{
    image im;
    if (!map_elf(path, &im))
        return false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im.bytes;
    bool found = first_load_base(&im, eh, base) && find_in_dynsym(&im, eh, name, value);
    munmap((void *)im.bytes, im.size);
    return found;
}

bool rp_elf_find_code(const char *path, const void *code, size_t n, uint64_t *value, uint64_t *base)
{
    image im;
    if (!map_elf(path, &im))
        return false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im.bytes;
    const Elf64_Phdr *ph = at(&im, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
    bool found = ph && eh->e_phentsize == sizeof(Elf64_Phdr) && first_load_base(&im, eh, base);
    bool seen = false;
    for (int i = 0; found && !seen && i < eh->e_phnum; i++) {
        const unsigned char *text = at(&im, ph[i].p_offset, ph[i].p_filesz);
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || !text)
            continue;
        const unsigned char *hit = memmem(text, ph[i].p_filesz, code, n);
        if (hit) {
            *value = ph[i].p_vaddr + (uint64_t)(hit - text);
            seen = true;
        }
    }
    munmap((void *)im.bytes, im.size);
    return found && seen;
}

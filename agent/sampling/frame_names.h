/*
 * agent/sampling/frame_names.h — the names of the frames the agent has seen.
 *
 * Owns: one copy of every distinct frame name — (path, label, first line)
 * — in the agent's own memory, each named by a dense id that the sample
 * buffer, the requests' held samples and the aggregator's tables carry in
 * place of the frame's Ruby object. Holding names rather than objects is
 * what lets the agent keep nothing of the program's alive: a method, a
 * block, a class body or an eval'd string the program drops is freed as
 * without the agent, and its samples keep its name (frame_capture.h turns
 * the objects into names as they are captured). Bounded in count and in
 * bytes: past RP_FRAME_NAMES_MAX names, or where a new name's text would
 * take theirs past RP_FRAME_NAMES_BYTES (a program that evals code under
 * long distinct file names), new names share one "[other frames]" name,
 * and the agent says so once. At parts, and as recordings end, the store lets go
 * of the names nothing holds any more (rp_frame_names_compact): the names
 * of code the program has dropped stop counting against the bound.
 *
 * Context: every function runs on a Ruby thread holding the GVL (capture
 * contexts, the writer), which is what serialises them. No Ruby call.
 */
#ifndef RPERF_AGENT_FRAME_NAMES_H
#define RPERF_AGENT_FRAME_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define RP_FRAME_NAMES_MAX (1u << 20)
#define RP_FRAME_NAMES_BYTES ((size_t)32 << 20)
#define RP_FRAME_NAMES_OTHER "[other frames: past the bound of 1,048,576 names or 32 MB of names]"

/* A frame's name as the writer gives it to the profile. */
typedef struct rp_named_frame {
    const char *path, *label;
    size_t path_len, label_len;
    uint32_t first_line; /* of a Ruby method or block; 0 for C methods */
} rp_named_frame;

/* The id of a name, added when new; once the bound is reached, a name
 * not known yet gets the id of the shared "[other frames]" name.
 * RP_IDX_NONE only when out of memory. */
uint32_t rp_frame_names_intern(const rp_named_frame *name);

/* The name with id `id`; its strings stay valid until the next intern. */
rp_named_frame rp_frame_names_get(uint32_t id);

/* A compaction: the store keeps only the names still held, renumbered.
 * `holders` is called twice; each time it calls `fn` on every name id
 * that anything of the agent holds (tables, buffers, requests' samples,
 * threads' last stacks, caches) and puts the id `fn` returns in its
 * place: the first time to note which names are held (the id comes back
 * unchanged), the second to renumber them. Returns 0, or -1 when out of
 * memory — nothing has changed then and the second call is not made.
 * RP_IDX_NONE passes through unchanged. */
typedef uint32_t rp_frame_name_fn(uint32_t id);
int rp_frame_names_compact(void (*holders)(rp_frame_name_fn *fn));

/* How many names are held, and the memory they take (bytes). */
void rp_frame_names_footprint(size_t *count, size_t *bytes);

/* Tests: forgets every name. */
void rp_frame_names_reset(void);

#endif

/*
 * agent/base/ruby_api.h — the Ruby C API as the agent may use it.
 *
 * Owns: the list of Ruby symbols the agent references, every one declared
 * weak. The agent is preloaded into every process a Ruby program starts
 * (sh, ls, compilers), where libruby is absent; weak references resolve to
 * NULL there instead of failing the load, also under LD_BIND_NOW=1. The
 * agent calls none of them before its interposed ruby_init() has run, so
 * they are only called when libruby is present. A test checks with nm that
 * no strong Ruby reference slips in.
 */
#ifndef RPERF_AGENT_RUBY_API_H
#define RPERF_AGENT_RUBY_API_H

/* Keep libc's snprintf & co.: Ruby would otherwise substitute its own. */
#define RUBY_DONT_SUBST 1
#include <ruby/ruby.h>
#include <ruby/debug.h>
#include <ruby/thread.h>
#include <ruby/version.h>

/* Ruby maps errno to its own accessor (rb_errno_ptr); the agent runs in
 * threads and signal handlers where only libc's thread-local errno is
 * right, so restore glibc's definition. */
#include <errno.h>
#undef errno
#define errno (*__errno_location())

#pragma weak rb_postponed_job_preregister
#pragma weak rb_postponed_job_trigger
#pragma weak rb_profile_frames
#pragma weak rb_profile_frame_path
#pragma weak rb_profile_frame_full_label
#pragma weak rb_profile_frame_first_lineno
#pragma weak rb_profile_frame_label
#pragma weak rb_profile_frame_base_label
#pragma weak rb_profile_frame_method_name
#pragma weak rb_profile_frame_singleton_method_p
#pragma weak rb_class_attached_object
#pragma weak rb_gc_latest_gc_info
#pragma weak rb_during_gc
#pragma weak rb_thread_current
#pragma weak rb_thread_main
#pragma weak rb_fiber_current
#pragma weak rb_internal_thread_specific_key_create
#pragma weak rb_internal_thread_specific_get
#pragma weak rb_internal_thread_specific_set
#pragma weak rb_internal_thread_add_event_hook
#pragma weak rb_internal_thread_remove_event_hook
#pragma weak rb_add_event_hook
#pragma weak rb_remove_event_hook
#pragma weak rb_add_event_hook2
#pragma weak rb_tracearg_object
#pragma weak rb_gc_location
#pragma weak rb_obj_class
#pragma weak rb_mod_name
#pragma weak rb_class_real
#pragma weak rb_set_end_proc
#pragma weak rb_data_typed_object_wrap
#pragma weak rb_gc_register_address
#pragma weak rb_gc_mark
#pragma weak rb_gc_stat
#pragma weak rb_gc_count
#pragma weak rb_intern2
#pragma weak rb_id2sym
#pragma weak rb_protect
#pragma weak rb_const_get
#pragma weak rb_const_defined
#pragma weak rb_funcall
#pragma weak rb_funcallv
#pragma weak rb_hash_aref
#pragma weak rb_set_errinfo
#pragma weak rb_num2dbl
#pragma weak ruby_thread_has_gvl_p
#pragma weak ruby_native_thread_p
#pragma weak ruby_version
#pragma weak ruby_api_version
#pragma weak rb_cObject

/* Exported by libruby for its objspace extension, declared in no public
 * header: an object's memory, and whether the last marking found it dead
 * (allocations.c; when absent, sizes fall back to a slot's). */
size_t rb_obj_memsize_of(VALUE obj);
bool rb_objspace_garbage_object_p(VALUE obj);
/* The superclass field as it is (no check, no raise: allocations.c reads
 * it inside an allocation). */
VALUE rb_class_get_superclass(VALUE klass);
#pragma weak rb_class_get_superclass
/* The GC's name, "default" for Ruby's own (exported by 3.4 and 4.0 for
 * modular GCs, declared in an internal header). */
const char *rb_gc_active_gc_name(void);
#pragma weak rb_gc_active_gc_name
#pragma weak rb_obj_memsize_of
#pragma weak rb_objspace_garbage_object_p

/* The Rperf API (api.c, profile_hash.c, ruby_lib.c). */
#pragma weak rb_ary_entry
#pragma weak rb_ary_new
#pragma weak rb_ary_new_capa
#pragma weak rb_ary_new_from_args
#pragma weak rb_ary_push
#pragma weak rb_ary_unshift
#pragma weak rb_block_given_p
#pragma weak rb_define_module
#pragma weak rb_define_singleton_method
#pragma weak rb_eArgError
#pragma weak rb_eLoadError
#pragma weak rb_eNoMemError
#pragma weak rb_eRuntimeError
#pragma weak rb_ensure
#pragma weak rb_error_arity
#pragma weak rb_fix2int
#pragma weak rb_get_kwargs
#pragma weak rb_gv_get
#pragma weak rb_hash_aset
#pragma weak rb_hash_dup
#pragma weak rb_hash_foreach
#pragma weak rb_hash_size_num
#pragma weak rb_hash_new
#pragma weak rb_intern
#pragma weak rb_jump_tag
#pragma weak rb_keyword_given_p
#pragma weak rb_ll2inum
#pragma weak rb_num2int
#pragma weak rb_num2long
#pragma weak rb_define_const
#pragma weak rb_obj_as_string
#pragma weak rb_obj_freeze
#pragma weak rb_raise
#pragma weak rb_str_intern
#pragma weak rb_str_new_cstr
#pragma weak rb_string_value_cstr
#pragma weak rb_sym2str
#pragma weak rb_syserr_fail
#pragma weak rb_utf8_str_new
#pragma weak rb_yield_values2
#pragma weak rb_inspect

#endif

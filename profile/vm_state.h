/*
 * profile/vm_state.h — what a thread was doing, as a sample's label.
 *
 * Owns: the VM states a sample can carry (running, off the GVL, waiting
 * for it, in GC marking or sweeping) and their labels in a profile:
 * %GVL=blocked, %GVL=wait, %GC=mark, %GC=sweep (none for running). The
 * agent writes states as labels; the analyzer's stat reads them back.
 */
#ifndef RPERF_PROFILE_VM_STATE_H
#define RPERF_PROFILE_VM_STATE_H

typedef enum rp_vm_state {
    RP_VM_RUNNING = 0,
    RP_VM_GVL_BLOCKED = 1,
    RP_VM_GVL_WAIT = 2,
    RP_VM_GC_MARK = 3,
    RP_VM_GC_SWEEP = 4,
    RP_VM_STATE_COUNT
} rp_vm_state;

/* The label of a state; key NULL for RP_VM_RUNNING, which has none. */
typedef struct rp_vm_state_label {
    const char *key, *value;
} rp_vm_state_label;

extern const rp_vm_state_label rp_vm_state_labels[RP_VM_STATE_COUNT];
/* What each state is called in summaries ("GVL blocked (I/O, sleep)"). */
extern const char *const rp_vm_state_titles[RP_VM_STATE_COUNT];

/* The state the label key=value stands for; RP_VM_RUNNING when it is no
 * state label (a user label, %pid). */
rp_vm_state rp_vm_state_of_label(const char *key, const char *value);

#endif

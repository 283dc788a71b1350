/*
 * profile/vm_state.c — VM states and their labels. See vm_state.h.
 */
#include "vm_state.h"

#include <stddef.h>
#include <string.h>

#include "schema.h"

const rp_vm_state_label rp_vm_state_labels[RP_VM_STATE_COUNT] = {
    [RP_VM_RUNNING] = {NULL, NULL},
    [RP_VM_GVL_BLOCKED] = {RP_LABEL_GVL, RP_LABEL_GVL_BLOCKED},
    [RP_VM_GVL_WAIT] = {RP_LABEL_GVL, RP_LABEL_GVL_WAIT},
    [RP_VM_GC_MARK] = {RP_LABEL_GC, RP_LABEL_GC_MARK},
    [RP_VM_GC_SWEEP] = {RP_LABEL_GC, RP_LABEL_GC_SWEEP},
};

const char *const rp_vm_state_titles[RP_VM_STATE_COUNT] = {
    [RP_VM_RUNNING] = "CPU execution",
    [RP_VM_GVL_BLOCKED] = "GVL blocked (I/O, sleep)",
    [RP_VM_GVL_WAIT] = "GVL wait (contention)",
    [RP_VM_GC_MARK] = "GC marking",
    [RP_VM_GC_SWEEP] = "GC sweeping",
};

rp_vm_state rp_vm_state_of_label(const char *key, const char *value)
{
    for (int s = 0; s < RP_VM_STATE_COUNT; s++) {
        const rp_vm_state_label *l = &rp_vm_state_labels[s];
        if (l->key && strcmp(key, l->key) == 0 && strcmp(value, l->value) == 0)
            return (rp_vm_state)s;
    }
    return RP_VM_RUNNING;
}

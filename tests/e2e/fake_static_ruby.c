/* Stands in for a ruby built without --enable-shared: it defines (and
 * exports, being linked with -rdynamic) ruby_init itself, so a preloaded
 * library cannot interpose it, and then reads RUBY_FREE_AT_EXIT as Ruby's
 * ruby_options does — the call where the agent starts in a real static
 * ruby — but it has no Ruby VM. It prints what getenv gives it. */
#include <stdio.h>
#include <stdlib.h>

void ruby_init(void);
int ruby_run_node(void *node);

void ruby_init(void) {}
int ruby_run_node(void *node) { return node != NULL; }

int main(void)
{
    ruby_init();
    const char *free_at_exit = getenv("RUBY_FREE_AT_EXIT"), *value = getenv("FAKE_RUBY_VALUE");
    printf("fake static ruby ran: %s %s %s\n", free_at_exit ? free_at_exit : "(unset)",
           value ? value : "(unset)", getenv("") ? "?" : "(none)");
    return ruby_run_node(NULL);
}

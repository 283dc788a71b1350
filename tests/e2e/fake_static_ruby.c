/* Stands in for a ruby built without --enable-shared: it defines (and
 * exports, being linked with -rdynamic) ruby_init itself, so a preloaded
 * library cannot interpose it. */
#include <stdio.h>

void ruby_init(void);
int ruby_run_node(void *node);

void ruby_init(void) {}
int ruby_run_node(void *node) { return node != NULL; }

int main(void)
{
    ruby_init();
    puts("fake static ruby ran");
    return ruby_run_node(NULL);
}

/* A C program reading an antipode table through the C interface.
 *
 *   lookup TABLE POSITION     prints the distance of POSITION and its index
 *   lookup TABLE < FILE       prints the distance of each line of FILE (one batch call)
 *
 * Build: cc -O2 -I bindings/c examples/lookup.c bindings/c/target/release/libantipode.a -lm -lpthread -ldl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antipode.h"

static int fail(const char *what, enum AntipodeStatus status) {
    fprintf(stderr, "lookup: %s: %s (status %d)\n", what, antipode_last_error(), (int)status);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: lookup TABLE [POSITION]\n");
        return 2;
    }
    AntipodeTable *table = NULL;
    enum AntipodeStatus status = antipode_table_open(argv[1], NULL, &table);
    if (status != ANTIPODE_OK) return fail("open", status);

    if (argc > 2) {
        uint32_t distance = 0;
        status = antipode_distance(table, argv[2], &distance);
        if (status != ANTIPODE_OK) return fail("distance", status);
        printf("%u\n", distance);
        antipode_table_close(table);
        return 0;
    }

    /* A batch: every line of standard input, answered by one call. */
    size_t capacity = 1024, count = 0;
    char **lines = malloc(capacity * sizeof *lines);
    char buffer[256];
    while (fgets(buffer, sizeof buffer, stdin)) {
        buffer[strcspn(buffer, "\n")] = 0;
        if (buffer[0] == 0) continue;
        if (count == capacity) {
            capacity *= 2;
            lines = realloc(lines, capacity * sizeof *lines);
        }
        lines[count++] = strdup(buffer);
    }
    uint32_t *distances = malloc((count ? count : 1) * sizeof *distances);
    status = antipode_distances(table, (const char *const *)lines, count, distances);
    if (status != ANTIPODE_OK) fail("a position of the batch", status);
    for (size_t i = 0; i < count; i++) {
        if (distances[i] == UINT32_MAX) printf("- %s\n", lines[i]);
        else printf("%u %s\n", distances[i], lines[i]);
        free(lines[i]);
    }
    free(lines);
    free(distances);
    antipode_table_close(table);
    return status == ANTIPODE_OK ? 0 : 1;
}

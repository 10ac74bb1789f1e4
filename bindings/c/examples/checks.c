/* The C interface's contract: ranking round trips, and misuse (null pointers, a
 * closed or foreign handle, bad positions, small buffers) is an error code with a
 * message, never a crash. Prints "ok" lines; exits non-zero on the first failure. */
#include <stdio.h>
#include <string.h>

#include "antipode.h"

#define CHECK(cond, what)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s (last error: %s)\n", what,             \
                    antipode_last_error());                                 \
            return 1;                                                       \
        }                                                                   \
        printf("ok   %s\n", what);                                          \
    } while (0)

int main(void) {
    AntipodePuzzle *eight = NULL;
    CHECK(antipode_puzzle_open("8puzzle", &eight) == ANTIPODE_OK, "open 8puzzle");
    uint64_t count = 0, index = 0;
    CHECK(antipode_index_count(eight, &count) == ANTIPODE_OK && count == 181440,
          "8puzzle has 181440 indices");
    CHECK(antipode_rank(eight, "867254301", &index) == ANTIPODE_OK, "rank a position");
    char line[64];
    CHECK(antipode_unrank(eight, index, line, sizeof line) == ANTIPODE_OK &&
              strcmp(line, "867/254/301") == 0,
          "unrank gives it back");
    CHECK(antipode_unrank(eight, index, line, 4) == ANTIPODE_BUFFER_TOO_SMALL,
          "a small buffer is refused");
    CHECK(antipode_unrank(eight, count, line, sizeof line) == ANTIPODE_BAD_INDEX,
          "an index beyond the count is refused");
    CHECK(antipode_rank(eight, "1234", &index) == ANTIPODE_BAD_POSITION &&
              strstr(antipode_last_error(), "wrong size") != NULL,
          "a bad position is refused with the library's message");
    CHECK(antipode_rank(NULL, "867254301", &index) == ANTIPODE_NULL_POINTER,
          "a null handle is refused");
    CHECK(antipode_rank(eight, NULL, &index) == ANTIPODE_NULL_POINTER,
          "a null string is refused");
    AntipodeTable *not_a_table = (AntipodeTable *)eight;
    uint32_t distance = 0;
    CHECK(antipode_distance(not_a_table, "867254301", &distance) == ANTIPODE_BAD_HANDLE,
          "a puzzle handle is not a table handle");
    CHECK(antipode_puzzle_close(eight) == ANTIPODE_OK, "close");
    CHECK(antipode_puzzle_open("nine", &eight) == ANTIPODE_BAD_TABLE &&
              strstr(antipode_last_error(), "unknown puzzle") != NULL,
          "an unknown puzzle is refused");
    AntipodeTable *table = NULL;
    CHECK(antipode_table_open("/nonexistent.table", &table) == ANTIPODE_BAD_TABLE,
          "a missing table is refused");
    return 0;
}

/* The C interface's contract: ranking round trips, table lookups by text and by
 * cell bytes, pattern-database estimates, and misuse (null pointers, a closed or
 * foreign handle, bad positions, small buffers, another puzzle's table, truncated or
 * corrupted files) is an error code with a message, never a crash. Prints "ok"
 * lines; exits non-zero on the first failure.
 *
 *   checks EIGHT_PUZZLE_TABLE SCRATCH_FOLDER
 *
 * The table is `antipode analyze 8puzzle --table ...`'s; copies of it, cut short and
 * with a byte flipped, and the 8-puzzle's 4-4 pattern databases go to the folder. */
#include <stdio.h>
#include <stdlib.h>
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

/* Copies `from` to `to`, keeping `keep` bytes (all if -1) and flipping the byte at
 * `flip` (none if -1). */
static int copy_file(const char *from, const char *to, long keep, long flip) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) return 0;
    long at = 0;
    int c;
    while ((c = fgetc(in)) != EOF && (keep < 0 || at < keep)) {
        fputc(at == flip ? c ^ 0x5a : c, out);
        at++;
    }
    fclose(in);
    return fclose(out) == 0;
}

static int table_checks(const char *eight_table, const char *scratch) {
    AntipodeTable *table = NULL;
    uint32_t distance = 0;
    CHECK(antipode_table_open(eight_table, "8puzzle", &table) == ANTIPODE_OK,
          "open the 8-puzzle's table as the 8-puzzle's");
    CHECK(antipode_distance(table, "867254301", &distance) == ANTIPODE_OK && distance == 31,
          "867254301 is 31 moves away (text)");
    const uint8_t cells[9] = {8, 6, 7, 2, 5, 4, 3, 0, 1};
    distance = 0;
    CHECK(antipode_distance_of_cells(table, cells, 9, &distance) == ANTIPODE_OK &&
              distance == 31,
          "867254301 is 31 moves away (cell bytes)");
    CHECK(antipode_distance_of_cells(table, cells, 8, &distance) == ANTIPODE_BAD_POSITION &&
              strstr(antipode_last_error(), "wrong size") != NULL,
          "eight cells are refused");
    const uint8_t twice[9] = {8, 8, 7, 2, 5, 4, 3, 0, 1};
    CHECK(antipode_distance_of_cells(table, twice, 9, &distance) == ANTIPODE_BAD_POSITION &&
              strstr(antipode_last_error(), "too often") != NULL,
          "a tile twice is refused");
    const uint8_t swapped[9] = {6, 8, 7, 2, 5, 4, 3, 0, 1};
    CHECK(antipode_distance_of_cells(table, swapped, 9, &distance) == ANTIPODE_BAD_POSITION &&
              strstr(antipode_last_error(), "parity") != NULL,
          "an unsolvable arrangement is refused");
    CHECK(antipode_distance_of_cells(table, NULL, 9, &distance) == ANTIPODE_NULL_POINTER,
          "null cells are refused");
    CHECK(antipode_table_close(table) == ANTIPODE_OK, "close the table");
    CHECK(antipode_table_open(eight_table, "11puzzle", &table) == ANTIPODE_BAD_TABLE &&
              strstr(antipode_last_error(), "this table is for 8puzzle") != NULL,
          "another puzzle's table is refused");
    char path[4096];
    snprintf(path, sizeof path, "%s/short.table", scratch);
    CHECK(copy_file(eight_table, path, 1000, -1), "write a truncated copy");
    CHECK(antipode_table_open(path, NULL, &table) == ANTIPODE_BAD_TABLE,
          "a truncated table is refused");
    printf("     (%s)\n", antipode_last_error());
    snprintf(path, sizeof path, "%s/flipped.table", scratch);
    CHECK(copy_file(eight_table, path, -1, 100000), "write a copy with a byte flipped");
    /* Opening reads the header and the block checksums; the first answer that
     * reads the damaged block is an error, never a distance. */
    CHECK(antipode_table_open(path, NULL, &table) == ANTIPODE_OK, "open the damaged copy");
    CHECK(antipode_distance(table, "867254301", &distance) == ANTIPODE_BAD_TABLE &&
              strstr(antipode_last_error(), "checksum") != NULL,
          "a distance read from the damaged block is refused");
    printf("     (%s)\n", antipode_last_error());
    CHECK(antipode_distance_of_index(table, 0, &distance) == ANTIPODE_BAD_TABLE,
          "so is an index's");
    CHECK(antipode_table_close(table) == ANTIPODE_OK, "close the damaged copy");
    return 0;
}

static int partition_checks(const char *scratch) {
    AntipodePartition *partition = NULL;
    uint32_t estimate = 0, from_cells = 0;
    CHECK(antipode_partition_open("8puzzle", "4-4", NULL, scratch, &partition) == ANTIPODE_OK,
          "open (build) the 8-puzzle's 4-4 pattern databases");
    CHECK(antipode_estimate(partition, "867254301", &estimate) == ANTIPODE_OK &&
              estimate > 0 && estimate <= 31,
          "their estimate of 867254301 is a lower bound on 31");
    const uint8_t cells[9] = {8, 6, 7, 2, 5, 4, 3, 0, 1};
    CHECK(antipode_estimate_cells(partition, cells, 9, &from_cells) == ANTIPODE_OK &&
              from_cells == estimate,
          "the same estimate from cell bytes");
    printf("     (estimate %u)\n", estimate);
    CHECK(antipode_estimate(partition, "12345678", &estimate) == ANTIPODE_BAD_POSITION,
          "a bad position is refused");
    CHECK(antipode_distance((AntipodeTable *)partition, "867254301", &estimate) ==
              ANTIPODE_BAD_HANDLE,
          "a partition handle is not a table handle");
    CHECK(antipode_partition_close(partition) == ANTIPODE_OK, "close the partition");
    CHECK(antipode_partition_open("8puzzle", "4-5", NULL, scratch, &partition) ==
              ANTIPODE_BAD_TABLE,
          "a partition that does not cover the board is refused");
    printf("     (%s)\n", antipode_last_error());
    CHECK(antipode_estimate(NULL, "867254301", &estimate) == ANTIPODE_NULL_POINTER,
          "a null partition is refused");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: checks EIGHT_PUZZLE_TABLE SCRATCH_FOLDER\n");
        return 2;
    }
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
    CHECK(antipode_table_open("/nonexistent.table", NULL, &table) == ANTIPODE_BAD_TABLE,
          "a missing table is refused");
    return table_checks(argv[1], argv[2]) || partition_checks(argv[2]);
}

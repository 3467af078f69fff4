// Host memory as the operating system sees it: the process's resident set, read from
// /proc/self/statm, and the glibc malloc settings that make it an honest measure of the
// bytes a program holds.
#pragma once

#include <cstdint>

namespace wrbench {

/// Bytes of one page (sysconf(_SC_PAGESIZE)).
uint64_t page_bytes();

/// Resident set size of this process in bytes: field 2 of /proc/self/statm (pages) times
/// the page size. 0 where /proc is not mounted.
uint64_t resident_bytes();

/// The anonymous part of the resident set: fields 2 - 3 of /proc/self/statm (resident minus
/// file-backed and shared pages, i.e. minus code pages of the program and its libraries).
uint64_t resident_anonymous_bytes();

/// Pins glibc malloc's mmap threshold and trim threshold at 128 KiB (their documented
/// defaults). Without this, freeing one mmap'd block raises both thresholds dynamically (up
/// to 32 MiB), after which big blocks come from the heap, and the heap keeps freed pages
/// resident: RSS would then show what the program held earlier, not what it holds now.
void pin_malloc_thresholds();

/// Hands free heap pages back to the kernel (glibc malloc_trim(0)), so that the RSS read
/// next counts live blocks, not free lists.
void release_free_heap();

}  // namespace wrbench

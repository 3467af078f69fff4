/* arc4random for the programs built with WR_STATIC_CXX_RUNTIME (the GPU bundle).
 *
 * Linking libstdc++ statically copies its std::random_device into every program and libwr, and
 * libstdc++ 12 built on glibc 2.36 draws from arc4random, which glibc has only since 2.36: the
 * copy would raise the bundle's glibc floor from 2.34 to 2.36 (random.o comes in with the
 * copy-on-write string instantiations, whatever the program uses). This definition is linked
 * into each of them instead, so that the reference binds here and nothing imports
 * arc4random@GLIBC_2.36. It returns what glibc's does, 32 bits from the kernel's random number
 * generator (getrandom, glibc 2.25). scripts/gpu-bundle.sh checks the floor of every file.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>

uint32_t arc4random(void);

uint32_t arc4random(void) {
  uint32_t value = 0;
  size_t got = 0;
  while (got < sizeof value) {
    const ssize_t n = getrandom((char*)&value + got, sizeof value - got, 0);
    if (n > 0) got += (size_t)n; /* interrupted by a signal (n < 0, EINTR): try again */
  }
  return value;
}

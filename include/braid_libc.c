/* braid's string functions: byte by byte, as KLEE's and Owi's C libraries
   have them. wasi-libc's (musl's) read a word at a time and test it with
   bit tricks (HASZERO), whose every branch relates four symbolic bytes;
   these branch on one byte at a time. Weak: a program's own definitions
   win. */
#include <stddef.h>

#define WEAK __attribute__((weak))

WEAK size_t strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (size_t)(p - s);
}

WEAK size_t strnlen(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i]) i++;
  return i;
}

WEAK char *strchrnul(const char *s, int c) {
  c = (unsigned char)c;
  while (*s && *(const unsigned char *)s != c) s++;
  return (char *)s;
}

WEAK char *strchr(const char *s, int c) {
  char *r = strchrnul(s, c);
  return *(unsigned char *)r == (unsigned char)c ? r : 0;
}

WEAK void *memchr(const void *src, int c, size_t n) {
  const unsigned char *s = src;
  c = (unsigned char)c;
  for (; n && *s != c; s++, n--);
  return n ? (void *)s : 0;
}

WEAK char *stpcpy(char *d, const char *s) {
  while ((*d = *s)) d++, s++;
  return d;
}

WEAK char *strcpy(char *d, const char *s) {
  stpcpy(d, s);
  return d;
}

WEAK char *stpncpy(char *d, const char *s, size_t n) {
  for (; n && (*d = *s); n--, s++, d++);
  for (size_t i = 0; i < n; i++) d[i] = 0;
  return d;
}

WEAK char *strncpy(char *d, const char *s, size_t n) {
  stpncpy(d, s, n);
  return d;
}

WEAK int strcmp(const char *l, const char *r) {
  for (; *l == *r && *l; l++, r++);
  return *(const unsigned char *)l - *(const unsigned char *)r;
}

WEAK int strncmp(const char *l, const char *r, size_t n) {
  if (!n--) return 0;
  for (; *l && *r && n && *l == *r; l++, r++, n--);
  return *(const unsigned char *)l - *(const unsigned char *)r;
}

WEAK size_t strspn(const char *s, const char *accept) {
  size_t n = 0;
  for (; s[n]; n++) {
    const char *a = accept;
    while (*a && *a != s[n]) a++;
    if (!*a) break;
  }
  return n;
}

WEAK size_t strcspn(const char *s, const char *reject) {
  size_t n = 0;
  for (; s[n]; n++) {
    const char *r = reject;
    while (*r && *r != s[n]) r++;
    if (*r) break;
  }
  return n;
}

WEAK char *strrchr(const char *s, int c) {
  const char *found = 0;
  for (;; s++) {
    if (*(const unsigned char *)s == (unsigned char)c) found = s;
    if (!*s) return (char *)found;
  }
}

/* C++'s operator new and delete (wasm32's mangled names; size_t is
   unsigned long) over malloc, for C++ sources, which are built against
   wasi-libc without libc++: new never throws, it fails as malloc does. */
void *malloc(size_t n);
void free(void *p);
WEAK void *_Znwm(size_t n) { return malloc(n ? n : 1); }
WEAK void *_Znam(size_t n) { return malloc(n ? n : 1); }
WEAK void _ZdlPv(void *p) { free(p); }
WEAK void _ZdaPv(void *p) { free(p); }
WEAK void _ZdlPvm(void *p, size_t n) { (void)n; free(p); }
WEAK void _ZdaPvm(void *p, size_t n) { (void)n; free(p); }

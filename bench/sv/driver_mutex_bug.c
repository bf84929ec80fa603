// expect: FALSE
// Device drivers (LDV style): a driver's entry points called in any order
// by an environment model; a mutex model checks that the driver never
// locks a held mutex nor unlocks a free one. One error path (a full
// buffer) returns with the mutex held; the next entry point locks it again.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
static int mutex_held;
static void mutex_lock(void) {
  if (mutex_held) reach_error();
  mutex_held = 1;
}
static void mutex_unlock(void) {
  if (!mutex_held) reach_error();
  mutex_held = 0;
}
struct device {
  int open_count;
  int buffer[4];
  int used;
};
static struct device dev;
static int dev_open(void) {
  mutex_lock();
  if (dev.open_count >= 2) {
    mutex_unlock();
    return -16; /* -EBUSY */
  }
  dev.open_count++;
  mutex_unlock();
  return 0;
}
static int dev_write(int value) {
  mutex_lock();
  if (dev.used == 4)
    return -28; /* -ENOSPC, mutex still held */
  dev.buffer[dev.used++] = value;
  mutex_unlock();
  return 1;
}
static void dev_release(void) {
  mutex_lock();
  if (dev.open_count > 0) dev.open_count--;
  mutex_unlock();
}
int main(void) {
  for (int step = 0; step < 6; step++) {
    switch (__VERIFIER_nondet_int()) {
    case 0: dev_open(); break;
    case 1: dev_write(__VERIFIER_nondet_int()); break;
    case 2: dev_release(); break;
    default: return 0;
    }
  }
  if (mutex_held) reach_error();
  return 0;
}

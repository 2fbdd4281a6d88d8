/*
 * filter_file.c
 *		bloomtool's filters in memory and on disk: reading and validating a
 *		filter file, and rewriting one safely (locks, a temporary file and a
 *		rename, cleanup on signals).
 */
#include "bloomtool.h"

/* ---------------------------------------------------------------- filters */


/* bf_mem's alloc: placed as the core asks (bf_placement) */
static unsigned char *
heap_alloc(void *arg, const bf_place *place, void **block)
{
	size_t		align = place->align < sizeof(void *) ? sizeof(void *) : place->align;
	size_t		pad = (align - BF_HEADER_SIZE % align) % align;
	void	   *p;

	(void) arg;
	if (posix_memalign(&p, align, pad + place->room) != 0)
		return NULL;
	*block = p;
	bf_advise_huge((unsigned char *) p + pad, place);
	return (unsigned char *) p + pad;
}

static void
heap_free(void *arg, void *block)
{
	(void) arg;
	free(block);
}

const bf_mem heap = {heap_alloc, heap_free, NULL, NULL, NULL};

/*
 * A filter the core refused to grow, add to or merge into ('src': the file
 * merged in, or NULL for an add)
 */
void
die_buf(const Filter *f, bf_status st, const char *src)
{
	const char *variant = bf_variant_name(f->b.view.variant);

	if (st == BF_E_NO_MEMORY)
		die(EXIT_IO, "out of memory for the filter \"%s\"", f->name);
	if (st == BF_E_NO_GROWTH && src == NULL)
		die(EXIT_BAD_FILTER, "the %s filter cannot grow further: it has as many stages as its format allows (split the set across several filters, or plan for more items)",
			variant);
	if (st == BF_E_NO_GROWTH)
		die(EXIT_BAD_FILTER, "the union would need more stages than the format allows (split the set across several filters, or plan the filters for more items)");
	if (st == BF_E_TOO_LARGE)
		die(EXIT_BAD_FILTER, "the %s filter cannot grow past the 1 GB limit of one value: it would need %llu bytes (split the set across several filters)",
			variant, (unsigned long long) f->b.wanted);
	if (src == NULL)
		die(EXIT_BAD_FILTER, "could not add to \"%s\": %s", f->name,
			bf_status_message(st));
	if (st == BF_E_UNSUPPORTED)
		die(EXIT_BAD_FILTER, "%s filters do not support union", variant);
	die(EXIT_BAD_FILTER, "could not merge \"%s\" into the union: %s", src,
		bf_status_message(st));
}

/* Reads up to 'len' bytes; fewer only at end of file */
static size_t
read_full(int fd, unsigned char *buf, size_t len, const char *path)
{
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_io("read", path);
		if (n == 0)
			break;
		done += (size_t) n;
	}
	return done;
}

/*
 * Reads and validates the filter on 'fd' ('name' for messages).  The header
 * is checked first, so that nothing is allocated for a size no filter can
 * have; then the file must hold exactly the bytes the header declares.
 */
void
read_filter_fd(int fd, const char *name, Filter *f)
{
	unsigned char header[BF_HEADER_SIZE];
	uint64_t	total;
	size_t		got;
	bf_status	st;
	struct stat sb;

	got = read_full(fd, header, sizeof(header), name);
	st = bf_check_header(header, got, &total);
	if (st != BF_OK)
		die_invalid(name, st);
	/* a regular file of the wrong size is refused before the allocation */
	if (fd != STDIN_FILENO && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		(uint64_t) sb.st_size != total)
		die_invalid(name, (uint64_t) sb.st_size < total ? BF_E_TRUNCATED : BF_E_TRAILING);

	f->name = name;
	st = bf_buf_alloc(&f->b, &heap, (size_t) total, true);
	if (st != BF_OK)
		die_buf(f, st, NULL);
	memcpy(f->b.bytes, header, BF_HEADER_SIZE);
	got = read_full(fd, f->b.bytes + BF_HEADER_SIZE, f->b.len - BF_HEADER_SIZE, name);
	if (got < f->b.len - BF_HEADER_SIZE)
		die_invalid(name, BF_E_TRUNCATED);
	if (read_full(fd, header, 1, name) != 0)
		die_invalid(name, BF_E_TRAILING);

	st = bf_open(f->b.bytes, f->b.len, &f->b.view);
	if (st != BF_OK)
		die_invalid(name, st);
}

/* Reads and validates a filter file ("-": standard input) */
void
read_filter(const char *path, Filter *f)
{
	int			fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);

	if (fd < 0)
		die_io("open", path);
	read_filter_fd(fd, path, f);
	if (fd != STDIN_FILENO)
		close(fd);
}

static void
write_full(int fd, const unsigned char *buf, size_t len, const char *path)
{
	while (len > 0)
	{
		ssize_t		n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_io("write", path);
		buf += n;
		len -= (size_t) n;
	}
}

/* ---------------------------------------------------------------- output files */

/*
 * A regular file is never written in place: the new filter goes to a
 * temporary file beside it, renamed over it once complete and on disk, so
 * that a reader sees the old filter or the new one, never half of one.
 * Around that rename:
 *
 *	- the name is followed through its symlinks: the file a link names is
 *	  rewritten (or created), and the link stays a link;
 *	- the file is locked (flock) from before it is read until it has been
 *	  replaced, so that concurrent writers take turns instead of losing each
 *	  other's items.  The lock is on the file itself: a writer that waited
 *	  for it checks that the name still leads to the file it locked, and
 *	  locks the new one if a rename came first;
 *	- the new file gets the old one's owner, group and mode;
 *	- the temporary file is removed on every error (an exit handler) and on
 *	  SIGHUP, SIGINT and SIGTERM.  SIGKILL cannot be caught: it leaves the
 *	  file behind, under a hidden name that says what it is,
 *	  .NAME.bloomtool-tmp.XXXXXX.
 *
 * Standard output, pipes and devices are written in place, without a lock.
 */

/* Of NAME in .NAME.bloomtool-tmp.XXXXXX, so that it fits in 255 bytes */
#define TEMP_NAME_KEEP	200

/* The temporary file, for the exit and signal handlers to remove */
static char temp_path[PATH_MAX + 32];
static volatile sig_atomic_t temp_exists = 0;

static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGTERM};

static void
remove_temp(void)
{
	if (temp_exists)
		unlink(temp_path);
	temp_exists = 0;
}

/* Async-signal-safe: unlink and raise only */
static void
on_signal(int sig)
{
	if (temp_exists)
		unlink(temp_path);
	temp_exists = 0;
	/* SA_RESETHAND restored the default action: end as the signal says */
	raise(sig);
}

void
install_cleanup(void)
{
	struct sigaction sa;
	size_t		i;

	atexit(remove_temp);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
	{
		struct sigaction old;

		/* a signal ignored by the caller (nohup, a background job) stays ignored */
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &sa, NULL);
	}
	/* past a file size limit (ulimit -f) write fails, and the exit cleans up */
	signal(SIGXFSZ, SIG_IGN);
}

/*
 * Blocks the cleanup signals while temp_exists changes together with the
 * file system, so that the handler never misses a temporary file nor
 * removes a name that is no longer ours.
 */
static void
hold_signals(int hold)
{
	static sigset_t saved;
	sigset_t	set;
	size_t		i;

	if (!hold)
	{
		sigprocmask(SIG_SETMASK, &saved, NULL);
		return;
	}
	sigemptyset(&set);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, &saved);
}

static char *
copy_string(const char *s, size_t len)
{
	char	   *p = malloc(len + 1);

	if (p == NULL)
		die(EXIT_IO, "out of memory");
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * The file 'name' leads to through its symlinks; it may not exist yet (a
 * link to a file to create).  A relative link is read from the directory
 * that holds it, as the kernel reads it.
 */
static char *
follow_links(const char *name)
{
	char	   *path = copy_string(name, strlen(name));
	struct stat st;
	int			hops;

	for (hops = 0; lstat(path, &st) == 0 && S_ISLNK(st.st_mode); hops++)
	{
		char		link[PATH_MAX];
		ssize_t		n = readlink(path, link, sizeof(link) - 1);
		const char *slash = strrchr(path, '/');
		size_t		dir;
		char	   *next;

		if (hops == 40)
		{
			errno = ELOOP;
			die_io("open", name);
		}
		if (n < 0)
			die_io("read the symlink", path);
		link[n] = '\0';
		/* "dir/" of the link, kept before a relative target */
		dir = link[0] == '/' || slash == NULL ? 0 : (size_t) (slash - path + 1);
		next = malloc(dir + (size_t) n + 1);
		if (next == NULL)
			die(EXIT_IO, "out of memory");
		memcpy(next, path, dir);
		memcpy(next + dir, link, (size_t) n + 1);
		free(path);
		path = next;
	}
	return path;
}

/*
 * Opens and locks the file at 'path'; -1 if there is none.  If the name
 * leads elsewhere once the lock is ours (the writer we waited for renamed
 * its file into place), the file it now names is locked instead.
 */
static int
lock_file(const char *path, struct stat *st)
{
	for (;;)
	{
		struct stat now;
		int			fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 && errno == ENOENT)
			return -1;
		if (fd < 0)
			die_io("open", path);
		if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		{
			if (errno != EWOULDBLOCK)
				die_io("lock", path);
			if (isatty(STDERR_FILENO))
				fprintf(stderr, "bloomtool %s: waiting for another writer of \"%s\"\n",
						command, path);
			while (flock(fd, LOCK_EX) != 0)
				if (errno != EINTR)
					die_io("lock", path);
		}
		if (fstat(fd, st) != 0)
			die_io("read", path);
		if (stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
			return fd;
		close(fd);
	}
}

/*
 * Prepares to write the filter file 'name': follows its symlinks, locks
 * the file if it exists ('must_exist': it has to), and creates the
 * temporary file beside it (so that an unwritable directory fails before
 * any input is read).
 */
void
target_open(const char *name, int must_exist, Target *t)
{
	struct stat st;
	const char *slash,
			   *base;
	int			n;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->lock_fd = -1;
	t->temp_fd = -1;
	if (strcmp(name, "-") == 0 || (stat(name, &st) == 0 && !S_ISREG(st.st_mode)))
	{
		t->in_place = 1;
		return;
	}
	t->path = follow_links(name);
	t->lock_fd = lock_file(t->path, &t->old);
	if (t->lock_fd < 0 && must_exist)
	{
		errno = ENOENT;
		die_io("open", name);
	}

	/* "DIR/.NAME.bloomtool-tmp.XXXXXX", NAME cut short to fit NAME_MAX */
	slash = strrchr(t->path, '/');
	base = slash ? slash + 1 : t->path;
	n = snprintf(temp_path, sizeof(temp_path), "%.*s.%.*s.bloomtool-tmp.XXXXXX",
				 (int) (base - t->path), t->path, TEMP_NAME_KEEP, base);
	if (n < 0 || (size_t) n >= sizeof(temp_path))
	{
		errno = ENAMETOOLONG;
		die_io("create a temporary file beside", t->path);
	}
	hold_signals(1);
	t->temp_fd = mkstemp(temp_path);
	temp_exists = t->temp_fd >= 0;
	hold_signals(0);
	if (t->temp_fd < 0)
		die_io("create a temporary file beside", t->path);
}

/* The old file's owner, group and mode; or a new file's mode from the umask */
static void
set_attributes(const Target *t)
{
	mode_t		mode;

	if (t->lock_fd >= 0)
	{
		/*
		 * Root can keep both, another user at least a group of theirs.
		 * Else the file becomes the writer's, as with sed -i: a rename
		 * cannot keep another owner, and that is no reason to fail.
		 */
		if (fchown(t->temp_fd, t->old.st_uid, t->old.st_gid) != 0 &&
			fchown(t->temp_fd, (uid_t) -1, t->old.st_gid) != 0)
		{
			/* the writer's owner and group, then */
		}
		mode = t->old.st_mode & 07777;
	}
	else
	{
		mode_t		mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(t->temp_fd, mode) != 0)
		die_io("write", t->path);
}

/* rename() that fails with EEXIST rather than replace a file */
static int
rename_new(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	/* a file system that cannot tell (EINVAL) replaces, as rename does */
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	return rename(from, to);
}

/* Flushes the directory of 'path', so that a crash keeps the rename */
static void
sync_directory(const char *path)
{
	const char *slash = strrchr(path, '/');
	char	   *dir = slash ? copy_string(path, slash == path ? 1 : (size_t) (slash - path)) :
		copy_string(".", 1);
	int			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* some file systems cannot sync a directory (EINVAL): nothing to wait for */
	if (fd >= 0 && fsync(fd) != 0 && errno != EINVAL)
		die_io("write the directory", dir);
	if (fd >= 0)
		close(fd);
	free(dir);
}

/*
 * Writes the filter to the target and releases it: in place for standard
 * output, a pipe or a device; else into the temporary file, renamed over
 * the file once it is on disk.  A new file is created only if no other
 * writer created it meanwhile; if one did, its turn comes first.
 */
void
target_write(Target *t, const Filter *f)
{
	if (t->in_place)
	{
		int			to_stdout = strcmp(t->name, "-") == 0;
		int			fd = to_stdout ? STDOUT_FILENO : open(t->name, O_WRONLY | O_TRUNC);

		if (fd < 0)
			die_io("open", t->name);
		write_full(fd, f->b.bytes, f->b.len, to_stdout ? "standard output" : t->name);
		if (!to_stdout && close(fd) != 0)
			die_io("write", t->name);
		return;
	}

	/* messages name the file: the temporary one is gone when they are read */
	write_full(t->temp_fd, f->b.bytes, f->b.len, t->path);
	for (;;)
	{
		int			rc,
					e;

		set_attributes(t);
		if (fsync(t->temp_fd) != 0)
			die_io("write", t->path);
		hold_signals(1);
		rc = t->lock_fd >= 0 ? rename(temp_path, t->path) :
			rename_new(temp_path, t->path);
		e = errno;
		if (rc == 0)
			temp_exists = 0;
		hold_signals(0);
		if (rc == 0)
			break;
		errno = e;
		if (t->lock_fd >= 0 || errno != EEXIST)
			die_io("replace", t->path);
		t->lock_fd = lock_file(t->path, &t->old);
	}
	if (close(t->temp_fd) != 0)
		die_io("write", t->path);
	sync_directory(t->path);
	/* the lock goes with the old file, once the new one is in place */
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	free(t->path);
}

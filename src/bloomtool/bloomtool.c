/*
 * bloomtool.c
 *		Build, extend, query, inspect and combine bloomfilter files from the
 *		command line, without PostgreSQL.
 *
 * A file holds exactly the bytes of a SQL value's f::bytea (STORAGE.md), so
 * either side reads what the other writes, and a filter built here from
 * lines is byte for byte the one bloomfilter_agg(line, n, p, variant) builds
 * from the same lines in the same order.  Each input line is one element,
 * hashed as SQL hashes a text value: its raw bytes, without the newline.  A
 * carriage return before the newline stays part of the element, as it would
 * in a text value.
 *
 * Exit status, for scripts: 0 success; 1 a usage error, or for check that
 * no line was printed (as grep); 2 an invalid filter file, or filters that
 * cannot be combined or grown; 3 an I/O error or no memory, for a filter or
 * for a line: no input is ever skipped.
 *
 * Files are rewritten through a temporary file and a rename, under a lock
 * that makes concurrent writers of one file take turns ("output files").
 */
#define _GNU_SOURCE				/* flock, madvise, renameat2 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bf.h"

#ifndef BLOOMTOOL_VERSION
#define BLOOMTOOL_VERSION "1.0"
#endif

#define EXIT_USAGE		1
#define EXIT_NO_MATCH	1
#define EXIT_BAD_FILTER 2
#define EXIT_IO			3

/* Lines hashed and prefetched together before check tests them */
#define BATCH			16

/* Filters from this size on are placed on 2 MB (huge page) boundaries */
#define HUGE_PAGE		((size_t) 2 * 1024 * 1024)
#define HUGE_FROM		(4 * HUGE_PAGE)

static const char *command = NULL;	/* for messages: "bloomtool build: " */

static const char usage_text[] =
"bloomtool - build and query bloomfilter files outside PostgreSQL\n"
"\n"
"Usage:\n"
"  bloomtool build --items N [--fpr P] [--variant V] [--seed S] -o FILE [INPUT...]\n"
"  bloomtool add FILE [INPUT...]\n"
"  bloomtool check [--invert] [--count] FILE [INPUT...]\n"
"  bloomtool info FILE\n"
"  bloomtool union FILE FILE... -o FILE\n"
"  bloomtool --help | --version\n"
"\n"
"Every line of the INPUT files (standard input if none, or \"-\") is one element,\n"
"hashed as SQL hashes a text value: its bytes without the newline (a carriage\n"
"return before it stays part of the element).  A filter file holds exactly the\n"
"bytes of the SQL value f::bytea, so bloomtool and the bloomfilter extension read\n"
"each other's files.\n"
"\n"
"Commands:\n"
"  build   write a new filter holding the input lines; the same bytes as\n"
"          bloomfilter_agg(line, N, P, V) over the same lines in the same order\n"
"  add     add the input lines to FILE, rewriting it (scalable and cuckoo\n"
"          filters grow when full)\n"
"  check   print the input lines that may be in FILE (with --invert, those that\n"
"          are certainly not)\n"
"  info    print the fields of bloomfilter_info(f), one \"name value\" per line\n"
"  union   write the union of the filters (the SQL operator |)\n"
"\n"
"Options:\n"
"  -n, --items N       number of distinct items to plan for (build; required)\n"
"  -p, --fpr P         target false-positive rate, 0 < P < 1 (build; default 0.01)\n"
"      --variant V     blocked (default), classic, counting, scalable or cuckoo\n"
"      --seed S        hash seed, a signed 64-bit integer as in SQL (default 0)\n"
"  -o, --output FILE   file to write (build, union; \"-\" is standard output)\n"
"  -v, --invert        check: print the lines that are certainly absent\n"
"  -c, --count         check: print only how many lines would be printed\n"
"  -h, --help          show this help\n"
"\n"
"Files are replaced through a temporary file, .FILE.bloomtool-tmp.XXXXXX, renamed\n"
"over FILE (a symlink's target) under a lock, so that concurrent writers take\n"
"turns; FILE keeps its mode, and its owner and group where the writer may set\n"
"them.\n"
"\n"
"Exit status: 0 success; 1 usage error, or check printed no line (as grep);\n"
"2 invalid filter file, or filters that cannot be combined or grown; 3 I/O error\n"
"or no memory, for a filter or a line (FILE is then left as it was).\n"
"When standard error is a terminal, long inputs show a progress line there.\n";

/* ---------------------------------------------------------------- errors */

static void
vreport(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("bloomtool: ", stderr);
	if (command)
		fprintf(stderr, "%s: ", command);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void
die(int status, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(status);
}

static void
usage_error(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fputs("Try \"bloomtool --help\" for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static void
die_io(const char *what, const char *path)
{
	die(EXIT_IO, "could not %s \"%s\": %s", what, path, strerror(errno));
}

static void
die_invalid(const char *path, bf_status st)
{
	die(EXIT_BAD_FILTER, "\"%s\" is not a valid bloomfilter: %s", path,
		bf_status_message(st));
}

/* ---------------------------------------------------------------- options */

typedef struct Options
{
	const char *items;
	const char *fpr;
	const char *variant;
	const char *seed;
	const char *output;
	int			invert;
	int			count;
	int			nargs;
	char	  **args;			/* the operands, in order */
} Options;

/*
 * Parses the options after the command; options and operands may come in
 * any order, "--" ends the options.  'allowed' lists the long names the
 * command takes.
 */
static void
parse_options(int argc, char **argv, const char *allowed, Options *o)
{
	int			i;
	int			only_operands = 0;

	memset(o, 0, sizeof(*o));
	o->args = calloc((size_t) argc + 1, sizeof(char *));
	if (o->args == NULL)
		die(EXIT_IO, "out of memory");
	for (i = 0; i < argc; i++)
	{
		const char *a = argv[i];
		const char *name = NULL;
		const char *value = NULL;
		const char **slot = NULL;
		int		   *flag = NULL;
		char		key[32];

		if (only_operands || a[0] != '-' || a[1] == '\0')
		{
			o->args[o->nargs++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0)
		{
			only_operands = 1;
			continue;
		}
		if (a[1] == '-')
		{
			const char *eq = strchr(a + 2, '=');
			size_t		len = eq ? (size_t) (eq - a - 2) : strlen(a + 2);

			if (len >= sizeof(key))
				usage_error("unknown option \"%s\"", a);
			memcpy(key, a + 2, len);
			key[len] = '\0';
			name = key;
			value = eq ? eq + 1 : NULL;
		}
		else
		{
			/* -n N or -nN; the flags -v, -c and -h take no value */
			static const struct
			{
				char		letter;
				const char *name;
			}			shorts[] = {
				{'n', "items"}, {'p', "fpr"}, {'o', "output"},
				{'v', "invert"}, {'c', "count"}, {'h', "help"},
			};
			size_t		j;

			for (j = 0; j < sizeof(shorts) / sizeof(shorts[0]); j++)
				if (shorts[j].letter == a[1])
					name = shorts[j].name;
			if (name == NULL)
				usage_error("unknown option \"%s\"", a);
			if (a[2] != '\0')
				value = a + 2;
		}

		if (strcmp(name, "help") == 0)
		{
			fputs(usage_text, stdout);
			exit(0);
		}
		if (strcmp(name, "items") == 0)
			slot = &o->items;
		else if (strcmp(name, "fpr") == 0)
			slot = &o->fpr;
		else if (strcmp(name, "variant") == 0)
			slot = &o->variant;
		else if (strcmp(name, "seed") == 0)
			slot = &o->seed;
		else if (strcmp(name, "output") == 0)
			slot = &o->output;
		else if (strcmp(name, "invert") == 0)
			flag = &o->invert;
		else if (strcmp(name, "count") == 0)
			flag = &o->count;

		/* allowed is " items fpr ... ": match whole words only */
		if (slot == NULL && flag == NULL)
			usage_error("unknown option \"%s\"", a);
		{
			char		word[40];

			snprintf(word, sizeof(word), " %s ", name);
			if (strstr(allowed, word) == NULL)
				usage_error("option \"%s\" does not apply to %s", a, command);
		}
		if (flag)
		{
			*flag = 1;
			/* -vc: more flags after the first one */
			for (; value && a[1] != '-' && *value; value++)
			{
				if (*value == 'v' && strstr(allowed, " invert "))
					o->invert = 1;
				else if (*value == 'c' && strstr(allowed, " count "))
					o->count = 1;
				else
					usage_error("unknown option \"%s\"", a);
			}
			if (value && *value)
				usage_error("option \"%s\" takes no value", a);
			continue;
		}
		if (value == NULL)
		{
			if (i + 1 >= argc)
				usage_error("option \"%s\" needs a value", a);
			value = argv[++i];
		}
		if (*slot)
			usage_error("option --%s given twice", name);
		*slot = value;
	}
}

static int64_t
parse_int64(const char *s, const char *name)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		usage_error("--%s must be an integer, not \"%s\"", name, s);
	return (int64_t) v;
}

static double
parse_rate(const char *s)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0')
		usage_error("--fpr must be a number, not \"%s\"", s);
	if (!(v > 0.0 && v < 1.0))
		usage_error("--fpr must lie strictly between 0 and 1, not %s (a rate of 1 %% is 0.01)", s);
	return v;
}

/* "blocked, classic, ...": the variants this build offers */
static const char *
variant_list(void)
{
	static char list[128];
	int			v;

	if (list[0] == '\0')
		for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
			if (bf_variant_available((bf_variant) v))
			{
				if (list[0])
					strcat(list, ", ");
				strcat(list, bf_variant_name((bf_variant) v));
			}
	return list;
}

/* ---------------------------------------------------------------- filters */

/* A filter in memory, its payload on a cache-line boundary */
typedef struct Filter
{
	unsigned char *buf;			/* the serialised bytes */
	size_t		len;
	bf_filter	view;
	const char *name;			/* for messages */
} Filter;

/*
 * Room for 'len' serialised bytes.  With the 64-byte header on a 64-byte
 * boundary every block of a blocked filter is one cache line; large
 * filters go on huge pages, so that a probe rarely costs a TLB miss too.
 */
static unsigned char *
alloc_filter(size_t len)
{
	size_t		align = len >= HUGE_FROM ? HUGE_PAGE : BF_BLOCK_BYTES;
	void	   *p;

	if (posix_memalign(&p, align, len) != 0)
		die(EXIT_IO, "out of memory for a filter of %zu bytes", len);
#ifdef MADV_HUGEPAGE
	if (align == HUGE_PAGE)
		(void) madvise(p, len / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
	return p;
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
static void
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
	f->len = (size_t) total;
	f->buf = alloc_filter(f->len);
	memcpy(f->buf, header, BF_HEADER_SIZE);
	got = read_full(fd, f->buf + BF_HEADER_SIZE, f->len - BF_HEADER_SIZE, name);
	if (got < f->len - BF_HEADER_SIZE)
		die_invalid(name, BF_E_TRUNCATED);
	if (read_full(fd, header, 1, name) != 0)
		die_invalid(name, BF_E_TRAILING);

	st = bf_open(f->buf, f->len, &f->view);
	if (st != BF_OK)
		die_invalid(name, st);
}

/* Reads and validates a filter file ("-": standard input) */
static void
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
typedef struct Target
{
	const char *name;			/* as given, for messages */
	char	   *path;			/* the file itself: no symlink at its end */
	int			in_place;		/* "-", a pipe or a device */
	int			lock_fd;		/* the existing file, locked; -1 if none */
	struct stat old;			/* of the locked file */
	int			temp_fd;
} Target;

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

static void
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
static void
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
static void
target_write(Target *t, const Filter *f)
{
	if (t->in_place)
	{
		int			to_stdout = strcmp(t->name, "-") == 0;
		int			fd = to_stdout ? STDOUT_FILENO : open(t->name, O_WRONLY | O_TRUNC);

		if (fd < 0)
			die_io("open", t->name);
		write_full(fd, f->buf, f->len, to_stdout ? "standard output" : t->name);
		if (!to_stdout && close(fd) != 0)
			die_io("write", t->name);
		return;
	}

	/* messages name the file: the temporary one is gone when they are read */
	write_full(t->temp_fd, f->buf, f->len, t->path);
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

/* Replaces the filter's bytes with 'buf', already written */
static void
replace_bytes(Filter *f, unsigned char *buf, size_t len)
{
	bf_status	st = bf_open(buf, len, &f->view);

	if (st != BF_OK)
		die(EXIT_BAD_FILTER, "internal error: a grown filter is invalid: %s",
			bf_status_message(st));
	free(f->buf);
	f->buf = buf;
	f->len = len;
}

/* Bytes a grown filter needs, refused past what one SQL value holds */
static size_t
grown_size(const Filter *f, uint64_t bytes)
{
	if (bytes == 0)
		die(EXIT_BAD_FILTER, "the %s filter cannot grow further: it has as many stages as its format allows (split the set across several filters, or plan for more items)",
			bf_variant_name(f->view.variant));
	if (bytes > BF_MAX_BYTES)
		die(EXIT_BAD_FILTER, "the %s filter cannot grow past the 1 GB limit of one value: it would need %llu bytes (split the set across several filters)",
			bf_variant_name(f->view.variant), (unsigned long long) bytes);
	return (size_t) bytes;
}

/*
 * Adds one hash as bloomfilter_agg does (bf_add_new: lines are a set, and a
 * cuckoo filter stores a repeated line once); a growing variant that is
 * full first gets another stage
 */
static void
filter_add(Filter *f, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add_new(&f->view, h)) == BF_E_FULL)
	{
		size_t		len = grown_size(f, bf_grow_bytes(&f->view));
		unsigned char *next = alloc_filter(len);

		bf_grow(&f->view, next);
		replace_bytes(f, next, len);
	}
	if (st != BF_OK)
		die(EXIT_BAD_FILTER, "could not add to \"%s\": %s", f->name,
			bf_status_message(st));
}

/* "blocked, 1024 bits, 7 hashes, seed 0, planned for 100 items at 0.01" */
static void
describe(const bf_filter *f, char *out, size_t size)
{
	int			n = snprintf(out, size, "%s, %llu bits, %u hashes, seed %lld",
							 bf_variant_name(f->variant),
							 (unsigned long long) f->bits, f->hashes,
							 (long long) (int64_t) f->seed);

	if (n > 0 && (size_t) n < size)
	{
		if (f->expected_items == 0)
			snprintf(out + n, size - n, ", built from a bit count");
		else
			snprintf(out + n, size - n, ", planned for %llu items at %g",
					 (unsigned long long) f->expected_items, f->target_fpr);
	}
}

/* dst |= src, as the SQL operator |: in place, or into new bytes if it grows */
static void
filter_union(Filter *dst, const Filter *src)
{
	uint64_t	need;
	bf_status	st;

	if (!bf_compatible(&dst->view, &src->view))
	{
		char		a[160],
					b[160];

		describe(&dst->view, a, sizeof(a));
		describe(&src->view, b, sizeof(b));
		die(EXIT_BAD_FILTER, "cannot combine bloomfilters of different parameters: \"%s\" is %s; \"%s\" is %s",
			dst->name, a, src->name, b);
	}
	need = bf_union_bytes(&dst->view, &src->view, NULL, NULL);
	if (need == 0)
		st = BF_E_TOO_LARGE;
	else if (need != BF_HEADER_SIZE + dst->view.payload_bytes)
	{
		size_t		len = grown_size(dst, need);
		unsigned char *next = alloc_filter(len);

		st = bf_union_into(&dst->view, &src->view, next, NULL, NULL);
		if (st == BF_OK)
			replace_bytes(dst, next, len);
		else
			free(next);
	}
	else
		st = bf_union(&dst->view, &src->view, NULL, NULL);
	if (st == BF_E_UNSUPPORTED)
		die(EXIT_BAD_FILTER, "%s filters do not support union",
			bf_variant_name(dst->view.variant));
	if (st == BF_E_TOO_LARGE)
		die(EXIT_BAD_FILTER, "the union would need more stages than the format allows (split the set across several filters, or plan the filters for more items)");
	if (st != BF_OK)
		die(EXIT_BAD_FILTER, "could not merge \"%s\" into the union: %s",
			src->name, bf_status_message(st));
}

/* ---------------------------------------------------------------- input */

/*
 * The input lines: the operand files in turn ("-" or none: standard
 * input), with a progress line on a terminal for long inputs.
 */
typedef struct Lines
{
	char	  **paths;
	int			npaths;
	int			next_path;
	FILE	   *in;
	const char *in_name;
	uint64_t	count;
	uint64_t	bytes;
	int			progress;		/* standard error is a terminal */
	int			shown;
	double		start;
	double		next_report;
} Lines;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * 'prints_lines': the command prints lines to standard output, so that a
 * progress line would get in their way when both go to the terminal.
 */
static void
lines_init(Lines *r, char **paths, int npaths, int prints_lines)
{
	static char *stdin_only[] = {"-"};

	memset(r, 0, sizeof(*r));
	r->paths = npaths > 0 ? paths : stdin_only;
	r->npaths = npaths > 0 ? npaths : 1;
	r->progress = isatty(STDERR_FILENO) &&
		!(prints_lines && isatty(STDOUT_FILENO));
	r->start = now();
	/* inputs read within a second need no progress line */
	r->next_report = r->start + 1.0;
}

static void
report_progress(Lines *r, int done)
{
	double		t = now();

	fprintf(stderr, "\rbloomtool %s: %llu lines, %.1f MB, %.0f s%s", command,
			(unsigned long long) r->count, r->bytes / 1e6, t - r->start,
			done ? "\n" : "");
	r->shown = 1;
	r->next_report = t + 0.25;
}

/*
 * The next line without its newline, in *line (a buffer getline manages)
 * with its length in *len; false at the end of the last input.  getline
 * also fails when a line does not fit in memory: only end of file ends an
 * input, anything else is an error.
 */
static int
lines_next(Lines *r, char **line, size_t *cap, size_t *len)
{
	for (;;)
	{
		ssize_t		n;

		if (r->in == NULL)
		{
			const char *path;

			if (r->next_path >= r->npaths)
				return 0;
			path = r->paths[r->next_path++];
			r->in_name = strcmp(path, "-") == 0 ? "standard input" : path;
			r->in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
			if (r->in == NULL)
				die_io("open", path);
		}
		errno = 0;
		n = getline(line, cap, r->in);
		if (n < 0)
		{
			if (ferror(r->in) || !feof(r->in))
				die(EXIT_IO, "could not read line %llu of \"%s\": %s",
					(unsigned long long) r->count + 1, r->in_name,
					strerror(errno ? errno : EIO));
			if (r->in != stdin && fclose(r->in) != 0)
				die_io("read", r->in_name);
			r->in = NULL;
			continue;
		}
		r->bytes += (uint64_t) n;
		if (n > 0 && (*line)[n - 1] == '\n')
			n--;
		*len = (size_t) n;
		if ((++r->count & 0xFFFF) == 0 && r->progress && now() >= r->next_report)
			report_progress(r, 0);
		return 1;
	}
}

static void
lines_done(Lines *r)
{
	if (r->shown)
		report_progress(r, 1);
}

/*
 * Adds every line.  Each hash's cache line is prefetched and the add done
 * BF_PENDING lines later, when it has arrived (bf_add_later); the adds
 * happen in input order, so the result is the one adding at once gives.
 */
static void
add_lines(Filter *f, Lines *r)
{
	bf_pending	pending;
	char	   *line = NULL;
	size_t		cap = 0,
				len;

	memset(&pending, 0, sizeof(pending));
	while (lines_next(r, &line, &cap, &len))
	{
		bf_hash		h = bf_hash_bytes(line, len, f->view.seed);

		if (!bf_add_later(&f->view, &pending, h))
			filter_add(f, h);
	}
	bf_add_pending(&f->view, &pending);
	free(line);
	lines_done(r);
}

/* ---------------------------------------------------------------- commands */

static void
need_operands(const Options *o, int min, int max, const char *what)
{
	if (o->nargs < min)
		usage_error("missing %s", what);
	if (max >= 0 && o->nargs > max)
		usage_error("unexpected argument \"%s\"", o->args[max]);
}

static int
cmd_build(Options *o)
{
	bf_variant	variant = BF_BLOCKED;
	int64_t		items;
	double		fpr = 0.01;
	int64_t		seed = 0;
	bf_params	params;
	bf_status	st;
	Filter		f;
	Lines		r;
	Target		t;

	if (o->items == NULL)
		usage_error("--items is required (the number of distinct items to plan for)");
	if (o->output == NULL)
		usage_error("-o FILE is required (\"-o -\" writes to standard output)");
	items = parse_int64(o->items, "items");
	if (items <= 0)
		usage_error("--items must be positive, not %s", o->items);
	if (o->fpr)
		fpr = parse_rate(o->fpr);
	if (o->seed)
		seed = parse_int64(o->seed, "seed");
	if (o->variant && !bf_variant_parse(o->variant, strlen(o->variant), &variant))
		usage_error("unknown variant \"%s\" (available: %s)", o->variant,
					variant_list());

	st = bf_plan(variant, (uint64_t) items, fpr, (uint64_t) seed, &params);
	if (st == BF_E_TOO_LARGE)
		usage_error("a %s filter for %lld items at rate %g would exceed the 1 GB limit of one value (split the set, or accept a higher rate)",
					bf_variant_name(variant), (long long) items, fpr);
	if (st != BF_OK)
		usage_error("invalid parameters: %s", bf_status_message(st));

	target_open(o->output, 0, &t);
	f.name = o->output;
	f.len = (size_t) params.total_bytes;
	f.buf = alloc_filter(f.len);
	bf_init(&params, f.buf);
	st = bf_open(f.buf, f.len, &f.view);
	if (st != BF_OK)
		die(EXIT_BAD_FILTER, "internal error: a new filter is invalid: %s",
			bf_status_message(st));

	lines_init(&r, o->args, o->nargs, 0);
	add_lines(&f, &r);
	target_write(&t, &f);
	free(f.buf);
	return 0;
}

static int
cmd_add(Options *o)
{
	Filter		f;
	Lines		r;
	Target		t;

	need_operands(o, 1, -1, "filter FILE");
	if (strcmp(o->args[0], "-") == 0)
		usage_error("the filter FILE cannot be standard input: add rewrites it");
	/* the file is read under the lock, held until the new one is in place */
	target_open(o->args[0], 1, &t);
	if (t.lock_fd >= 0)
		read_filter_fd(t.lock_fd, o->args[0], &f);
	else
		read_filter(o->args[0], &f);
	lines_init(&r, o->args + 1, o->nargs - 1, 0);
	add_lines(&f, &r);
	target_write(&t, &f);
	free(f.buf);
	return 0;
}

static int
cmd_check(Options *o)
{
	Filter		f;
	Lines		r;
	char	   *line[BATCH] = {NULL};
	size_t		cap[BATCH] = {0},
				len[BATCH];
	bf_hash		h[BATCH];
	uint64_t	printed = 0;
	int			n,
				i;

	need_operands(o, 1, -1, "filter FILE");
	if (strcmp(o->args[0], "-") == 0)
		usage_error("the filter FILE cannot be standard input: the lines are read from there");
	read_filter(o->args[0], &f);
	lines_init(&r, o->args + 1, o->nargs - 1, !o->count);

	/* hash a batch and prefetch its cache lines, then test it in order */
	do
	{
		for (n = 0; n < BATCH && lines_next(&r, &line[n], &cap[n], &len[n]); n++)
		{
			h[n] = bf_hash_bytes(line[n], len[n], f.view.seed);
			bf_prefetch(&f.view, h[n]);
		}
		for (i = 0; i < n; i++)
			if (bf_contains(&f.view, h[i]) != o->invert)
			{
				printed++;
				if (!o->count)
				{
					fwrite(line[i], 1, len[i], stdout);
					putchar('\n');
				}
			}
	} while (n == BATCH);
	lines_done(&r);

	if (o->count)
		printf("%llu\n", (unsigned long long) printed);
	if (fflush(stdout) != 0 || ferror(stdout))
		die_io("write", "standard output");
	for (i = 0; i < BATCH; i++)
		free(line[i]);
	free(f.buf);
	return printed > 0 ? 0 : EXIT_NO_MATCH;
}

/*
 * A float8 as PostgreSQL prints it (extra_float_digits 1, the default):
 * the fewest digits that read back as the same value, fixed-point for
 * decimal exponents -4 to 14, exponential otherwise.
 */
static void
print_float8(double v)
{
	char		buf[64];
	int			digits,
				exp10;

	if (isnan(v))
	{
		puts("NaN");
		return;
	}
	if (isinf(v))
	{
		puts(v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (v == 0.0)
	{
		puts(signbit(v) ? "-0" : "0");
		return;
	}
	for (digits = 1; digits < 17; digits++)
	{
		snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
	exp10 = atoi(strchr(buf, 'e') + 1);
	if (exp10 >= -4 && exp10 < 15)
		printf("%.*f\n", digits - 1 - exp10 > 0 ? digits - 1 - exp10 : 0, v);
	else
		puts(buf);
}

static int
cmd_info(Options *o)
{
	Filter		f;
	bf_fill_stats fill;
	uint64_t	capacity;

	need_operands(o, 1, 1, "filter FILE");
	read_filter(o->args[0], &f);
	bf_fill(&f.view, &fill, NULL, NULL);
	capacity = bf_filter_capacity(&f.view);

	/* the columns of bloomfilter_info(f), in order; null as SQL's NULL */
	printf("%-19s %s\n", "variant", bf_variant_name(f.view.variant));
	printf("%-19s %llu\n", "bits", (unsigned long long) f.view.bits);
	printf("%-19s %llu\n", "bytes", (unsigned long long) f.len);
	printf("%-19s %u\n", "hashes", f.view.hashes);
	printf("%-19s %lld\n", "seed", (long long) (int64_t) f.view.seed);
	printf("%-19s %llu\n", "items_added", (unsigned long long) f.view.items);
	printf("%-19s %llu\n", "bits_set", (unsigned long long) fill.bits_set);
	printf("%-19s ", "fill_ratio");
	print_float8(fill.fill_ratio);
	printf("%-19s ", "estimated_items");
	print_float8(fill.estimated_items);
	printf("%-19s ", "estimated_fpr");
	print_float8(fill.fpr);
	if (capacity == 0)
		printf("%-19s null\n", "capacity");
	else
		printf("%-19s %llu\n", "capacity", (unsigned long long) capacity);
	printf("%-19s ", "target_fpr");
	if (f.view.target_fpr == 0.0)
		puts("null");
	else
		print_float8(f.view.target_fpr);
	printf("%-19s %u\n", "stages", fill.stages);
	printf("%-19s %llu\n", "saturated_counters",
		   (unsigned long long) fill.saturated);

	if (fflush(stdout) != 0 || ferror(stdout))
		die_io("write", "standard output");
	free(f.buf);
	return 0;
}

static int
cmd_union(Options *o)
{
	Filter		dst;
	Target		t;
	int			i;

	need_operands(o, 2, -1, "filters: union needs at least two");
	if (o->output == NULL)
		usage_error("-o FILE is required (\"-o -\" writes to standard output)");
	/* locked before the inputs are read: the output may be one of them */
	target_open(o->output, 0, &t);
	read_filter(o->args[0], &dst);
	for (i = 1; i < o->nargs; i++)
	{
		Filter		src;

		read_filter(o->args[i], &src);
		filter_union(&dst, &src);
		free(src.buf);
	}
	target_write(&t, &dst);
	free(dst.buf);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct
	{
		const char *name;
		const char *options;	/* long options it takes, space-delimited */
		int			(*run) (Options *o);
	}			commands[] = {
		{"build", " items fpr variant seed output ", cmd_build},
		{"add", " ", cmd_add},
		{"check", " invert count ", cmd_check},
		{"info", " ", cmd_info},
		{"union", " output ", cmd_union},
	};
	Options		o;
	size_t		i;

	if (argc < 2)
	{
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
		strcmp(argv[1], "help") == 0)
	{
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0)
	{
		printf("bloomtool (bloomfilter) %s, filter format version %d\n",
			   BLOOMTOOL_VERSION, BF_FORMAT_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
		{
			static char out_buf[1 << 16];

			command = commands[i].name;
			install_cleanup();
			setvbuf(stdout, out_buf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF,
					sizeof(out_buf));
			parse_options(argc - 2, argv + 2, commands[i].options, &o);
			return commands[i].run(&o);
		}
	usage_error("unknown command \"%s\" (commands: build, add, check, info, union)",
				argv[1]);
	return EXIT_USAGE;
}

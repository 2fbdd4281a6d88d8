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
#include "bloomtool.h"

const char *command = NULL;	/* for messages: "bloomtool build: " */

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

void
die(int status, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(status);
}

void
usage_error(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fputs("Try \"bloomtool --help\" for more information.\n", stderr);
	exit(EXIT_USAGE);
}

void
die_io(const char *what, const char *path)
{
	die(EXIT_IO, "could not %s \"%s\": %s", what, path, strerror(errno));
}

void
die_invalid(const char *path, bf_status st)
{
	die(EXIT_BAD_FILTER, "\"%s\" is not a valid bloomfilter: %s", path,
		bf_status_message(st));
}

/* ---------------------------------------------------------------- options */


/* The options, by long name and short letter, and where they go */
typedef struct OptionDef
{
	const char *name;
	char		letter;			/* 0: no short form */
	bool		is_flag;		/* an int set to 1, else a value */
	size_t		offset;			/* in Options */
} OptionDef;

static const OptionDef option_defs[] = {
	{"items", 'n', false, offsetof(Options, items)},
	{"fpr", 'p', false, offsetof(Options, fpr)},
	{"variant", 0, false, offsetof(Options, variant)},
	{"seed", 0, false, offsetof(Options, seed)},
	{"output", 'o', false, offsetof(Options, output)},
	{"invert", 'v', true, offsetof(Options, invert)},
	{"count", 'c', true, offsetof(Options, count)},
	{"help", 'h', true, 0},		/* prints the usage */
	{NULL}
};

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
		const OptionDef *d;
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
			for (d = option_defs; d->name; d++)
				if (d->letter == a[1])
					name = d->name;
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
		for (d = option_defs; d->name && strcmp(d->name, name) != 0; d++)
			;
		if (d->name && d->is_flag)
			flag = (int *) ((char *) o + d->offset);
		else if (d->name)
			slot = (const char **) ((char *) o + d->offset);

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

int64_t
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

double
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

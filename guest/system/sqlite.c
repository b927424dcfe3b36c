// SPDX-License-Identifier: GPL-2.0
/*
 * imm-sqlite DB: a SQLite database in WAL mode, frozen with chattr +i while
 * a reader holds a read transaction (the -shm and, with mmap_size set, the
 * database mapped shared through descriptors open for writing) and a
 * writer connection opened before the flag stays open.  One line per step on
 * stdout, "ok NAME" or "FAIL NAME: why"; exit status 1 if any failed.
 *
 *   flag_set_while_read    FS_IOC_SETFLAGS +i succeeds: the reader does not
 *                          veto it
 *   new_writer_refused     a connection opened after the flag cannot write
 *                          (SQLite reports the error to the application)
 *   old_writer_refused     the writer opened before the flag cannot
 *                          checkpoint into the database: the frozen file's
 *                          bytes are never written (6.12 writes them)
 *   reader_keeps_reading   the reader's transaction still reads every row
 *   intact_after_clear     after chattr -i, integrity_check is "ok" and
 *                          every row is there
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define ROWS 1000

static int failed;

static void verdict(int ok, const char *name, const char *why)
{
	if (ok) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		failed = 1;
	}
	fflush(stdout);
}

static sqlite3 *db_open(const char *path)
{
	sqlite3 *db;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		printf("FAIL open %s: %s\n", path, sqlite3_errmsg(db));
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* the first column of the first row of SQL, as a number; -1 on error */
static long long scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char *text(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st;

	snprintf(buf, len, "(%s)", "no row");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlite3_errmsg(db);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/* FNV-1a of the whole file: what a frozen file must keep */
static unsigned long long file_hash(const char *path)
{
	unsigned long long h = 1469598103934665603ULL;
	unsigned char buf[65536];
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	close(fd);
	return h;
}

static int set_immutable(const char *path, int on)
{
	int fd = open(path, O_RDONLY), flags, ret = -1;

	if (fd < 0)
		return -1;
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
		ret = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	sqlite3 *setup, *reader, *old, *fresh;
	char why[512], buf[256];
	const char *path;
	char *err = NULL;
	int rc, i;

	if (argc != 2) {
		fprintf(stderr, "usage: imm-sqlite DB\n");
		return 2;
	}
	path = argv[1];
	unlink(path);
	setup = db_open(path);
	if (!setup)
		return 1;
	if (sqlite3_exec(setup, "PRAGMA journal_mode=WAL;"
			 "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"
			 "BEGIN;", NULL, NULL, &err) != SQLITE_OK) {
		printf("FAIL setup: %s\n", err);
		return 1;
	}
	for (i = 0; i < ROWS; i++) {
		snprintf(buf, sizeof(buf),
			 "INSERT INTO t(v) VALUES('row %d %0100d');", i, i);
		sqlite3_exec(setup, buf, NULL, NULL, NULL);
	}
	if (sqlite3_exec(setup, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);",
			 NULL, NULL, &err) != SQLITE_OK) {
		printf("FAIL setup: %s\n", err);
		return 1;
	}

	/* the reader: a read transaction, the -shm mapped shared */
	reader = db_open(path);
	old = db_open(path);
	if (!reader || !old)
		return 1;
	/* both map the database shared, as SQLite does with mmap_size set */
	sqlite3_exec(reader, "PRAGMA mmap_size=268435456;", NULL, NULL, NULL);
	sqlite3_exec(old, "PRAGMA mmap_size=268435456;", NULL, NULL, NULL);
	sqlite3_exec(reader, "BEGIN;", NULL, NULL, NULL);
	if (scalar(reader, "SELECT count(*) FROM t;") != ROWS) {
		printf("FAIL setup: the reader does not see %d rows\n", ROWS);
		return 1;
	}
	/* the old writer has the database open for writing */
	if (scalar(old, "SELECT count(*) FROM t;") != ROWS) {
		printf("FAIL setup: the writer does not see %d rows\n", ROWS);
		return 1;
	}

	rc = set_immutable(path, 1);
	snprintf(why, sizeof(why), "FS_IOC_SETFLAGS +i: %s", strerror(errno));
	verdict(rc == 0, "flag_set_while_read", why);
	if (rc)
		return 1;

	fresh = db_open(path);
	rc = fresh ? sqlite3_exec(fresh, "INSERT INTO t(v) VALUES('new');",
				  NULL, NULL, &err) : SQLITE_CANTOPEN;
	snprintf(why, sizeof(why), "INSERT through a new connection: %s",
		 rc == SQLITE_OK ? "succeeded" : err);
	verdict(rc != SQLITE_OK, "new_writer_refused", why);
	if (rc != SQLITE_OK)
		printf("#   the application was told: %s\n", err);
	sqlite3_free(err);
	err = NULL;

	/*
	 * The writer opened before the flag: its insert goes to the -wal
	 * file, which is not frozen; the checkpoint writes its pages into the
	 * frozen database (and then truncates it, which 6.12 refuses: the
	 * return code alone proves nothing).  The file's bytes decide.
	 */
	sqlite3_exec(old, "INSERT INTO t(v) VALUES('late');", NULL, NULL, NULL);
	sqlite3_exec(reader, "COMMIT;", NULL, NULL, NULL);
	{
		unsigned long long before = file_hash(path);
		int log = -1, ckpt = -1;

		rc = sqlite3_wal_checkpoint_v2(old, NULL,
					       SQLITE_CHECKPOINT_PASSIVE,
					       &log, &ckpt);
		snprintf(why, sizeof(why),
			 "checkpoint through the earlier connection: rc %d (%s); the frozen file %s",
			 rc, sqlite3_errstr(rc),
			 file_hash(path) == before ? "is unchanged" : "CHANGED");
		verdict(file_hash(path) == before, "old_writer_refused", why);
		printf("#   %s\n", why);
	}
	sqlite3_exec(reader, "BEGIN;", NULL, NULL, NULL);
	snprintf(why, sizeof(why), "SELECT count(*) gave %lld",
		 scalar(reader, "SELECT count(*) FROM t;"));
	verdict(scalar(reader, "SELECT count(*) FROM t;") >= ROWS,
		"reader_keeps_reading", why);
	sqlite3_exec(reader, "COMMIT;", NULL, NULL, NULL);

	if (fresh)
		sqlite3_close(fresh);
	sqlite3_close(old);
	sqlite3_close(reader);
	sqlite3_close(setup);
	rc = set_immutable(path, 0);
	setup = db_open(path);
	text(setup, "PRAGMA integrity_check;", buf, sizeof(buf));
	snprintf(why, sizeof(why), "chattr -i: %s; integrity_check: %s; %lld rows",
		 rc ? strerror(errno) : "ok", buf,
		 scalar(setup, "SELECT count(*) FROM t;"));
	verdict(!rc && !strcmp(buf, "ok") &&
		scalar(setup, "SELECT count(*) FROM t;") >= ROWS,
		"intact_after_clear", why);
	sqlite3_close(setup);
	return failed;
}

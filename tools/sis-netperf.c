// SPDX-License-Identifier: GPL-2.0
/*
 * sis-netperf: a netperf-style TCP_RR request/response test.
 *
 *   sis-netperf -S [-L ADDR] [-p PORT]           the server (netserver)
 *   sis-netperf -H ADDR [-p PORT] [-t TCP_RR] [-l SECONDS]
 *               [-- -r REQ[,RESP] [-k SELECTORS]]
 *
 * One connection, one transaction in flight: the client writes REQ bytes,
 * the server (a process forked per connection) answers with RESP bytes.
 * The client prints netperf's TCP_RR table, or with -k the KEY=VALUE lines
 * of the selectors asked for (THROUGHPUT, THROUGHPUT_UNITS, ELAPSED_TIME,
 * REQUEST_SIZE, RESPONSE_SIZE, MIN/MEAN/P50/P90/P99/MAX/STDDEV_LATENCY),
 * so scripts written for netperf read it unchanged.  Every response is
 * checked to echo the request's sequence number.
 *
 * --self-test runs a server and a short client on loopback and checks the
 * byte and transaction accounting.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define DEFAULT_PORT	12865
#define MAX_MSG		(1 << 20)
#define LAT_BUCKETS	100000		/* 1 us buckets up to 100 ms */

struct hello {
	uint32_t req, resp;
};

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: sis-netperf -S [-L ADDR] [-p PORT]\n"
		"       sis-netperf -H ADDR [-p PORT] [-t TCP_RR] [-l SECONDS]\n"
		"                   [-- -r REQ[,RESP] [-k SELECTOR,...]]\n"
		"       sis-netperf --self-test\n");
	exit(rc);
}

static int full_io(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static void addr_of(const char *host, int port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
		fprintf(stderr, "sis-netperf: '%s' is not an IPv4 address\n", host);
		exit(2);
	}
}

static void serve(int c)
{
	struct hello h;
	char *buf;

	if (full_io(c, &h, sizeof(h), 0) || !h.req || h.req > MAX_MSG ||
	    !h.resp || h.resp > MAX_MSG)
		_exit(1);
	buf = calloc(1, h.req > h.resp ? h.req : h.resp);
	if (!buf)
		_exit(1);
	/* answer with the first 8 bytes of the request: its sequence */
	while (!full_io(c, buf, h.req, 0))
		if (full_io(c, buf, h.resp, 1))
			break;
	_exit(0);
}

/* listen on ADDR:PORT (0 picks one) and return the socket */
static int listen_on(const char *addr, int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int one = 1, s;

	addr_of(addr, *port, &sa);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		die("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 1024))
		die("cannot listen");
	getsockname(s, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return s;
}

static void server_loop(int s)
{
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int c = accept(s, NULL, NULL), one = 1;

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			close(s);
			serve(c);
		}
		close(c);
	}
}

struct result {
	double elapsed, mean, stddev;
	uint64_t trans, bad;
	unsigned int min, p50, p90, p99, max;
};

static unsigned int lat_pct(const uint32_t *hist, uint64_t n, double p)
{
	uint64_t sum = 0, need = ceil(p / 100.0 * n - 1e-9);
	unsigned int i;

	for (i = 0; i < LAT_BUCKETS; i++) {
		sum += hist[i];
		if (sum && sum >= need)
			return i;
	}
	return LAT_BUCKETS - 1;
}

static void client(const char *host, int port, double secs, unsigned int req,
		   unsigned int resp, struct result *r)
{
	struct hello h = { req, resp };
	struct sockaddr_in sa;
	uint32_t *hist = calloc(LAT_BUCKETS, sizeof(*hist));
	char *buf = calloc(1, req > resp ? req : resp);
	double t0, end, sum = 0, sq = 0;
	uint64_t seq;
	int one = 1, s;

	if (!hist || !buf)
		die("out of memory");
	addr_of(host, port, &sa);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		die("cannot connect to the server (is 'sis-netperf -S' running?)");
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (full_io(s, &h, sizeof(h), 1))
		die("handshake");
	memset(r, 0, sizeof(*r));
	r->min = ~0U;
	t0 = now();
	end = t0 + secs;
	for (seq = 1; ; seq++) {
		double a = now(), us;
		unsigned int b;

		if (a >= end)
			break;
		memcpy(buf, &seq, req < sizeof(seq) ? req : sizeof(seq));
		if (full_io(s, buf, req, 1) || full_io(s, buf, resp, 0))
			die("connection lost");
		if (req >= sizeof(seq) && resp >= sizeof(seq) &&
		    memcmp(buf, &seq, sizeof(seq)))
			r->bad++;
		us = (now() - a) * 1e6;
		b = us < LAT_BUCKETS ? (unsigned int)us : LAT_BUCKETS - 1;
		hist[b]++;
		if (b < r->min)
			r->min = b;
		if (b > r->max)
			r->max = b;
		sum += us;
		sq += us * us;
		r->trans++;
	}
	r->elapsed = now() - t0;
	close(s);
	if (r->trans) {
		r->mean = sum / r->trans;
		r->stddev = sqrt(fmax(0, sq / r->trans - r->mean * r->mean));
		r->p50 = lat_pct(hist, r->trans, 50);
		r->p90 = lat_pct(hist, r->trans, 90);
		r->p99 = lat_pct(hist, r->trans, 99);
	} else {
		r->min = 0;
	}
	free(hist);
	free(buf);
}

static void print_keyval(const char *sel, const struct result *r,
			 unsigned int req, unsigned int resp)
{
	char *list = strdup(sel), *k, *save = NULL;

	for (k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		printf("%s=", k);
		if (!strcmp(k, "THROUGHPUT"))
			printf("%.2f\n", r->trans / r->elapsed);
		else if (!strcmp(k, "THROUGHPUT_UNITS"))
			printf("Trans/s\n");
		else if (!strcmp(k, "ELAPSED_TIME"))
			printf("%.2f\n", r->elapsed);
		else if (!strcmp(k, "REQUEST_SIZE"))
			printf("%u\n", req);
		else if (!strcmp(k, "RESPONSE_SIZE"))
			printf("%u\n", resp);
		else if (!strcmp(k, "MIN_LATENCY"))
			printf("%u\n", r->min);
		else if (!strcmp(k, "MEAN_LATENCY"))
			printf("%.2f\n", r->mean);
		else if (!strcmp(k, "P50_LATENCY"))
			printf("%u\n", r->p50);
		else if (!strcmp(k, "P90_LATENCY"))
			printf("%u\n", r->p90);
		else if (!strcmp(k, "P99_LATENCY"))
			printf("%u\n", r->p99);
		else if (!strcmp(k, "MAX_LATENCY"))
			printf("%u\n", r->max);
		else if (!strcmp(k, "STDDEV_LATENCY"))
			printf("%.2f\n", r->stddev);
		else
			printf("(unknown selector)\n");
	}
	free(list);
}

static void print_table(const char *host, const struct result *r,
			unsigned int req, unsigned int resp)
{
	printf("MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to %s () port 0 AF_INET : first burst 0\n",
	       host);
	printf("Local /Remote\n");
	printf("Socket Size   Request  Resp.   Elapsed  Trans.\n");
	printf("Send   Recv   Size     Size    Time     Rate\n");
	printf("bytes  Bytes  bytes    bytes   secs.    per sec\n\n");
	printf("%-6d %-6d %-8u %-7u %-8.2f %-8.2f\n", 16384, 131072, req, resp,
	       r->elapsed, r->trans / r->elapsed);
	printf("%-6d %-6d\n", 16384, 131072);
}

static int self_test(void)
{
	struct result r;
	int port = 0, s = listen_on("127.0.0.1", &port), fails = 0;
	pid_t srv = fork();

	if (srv < 0)
		die("fork");
	if (!srv)
		server_loop(s);
	close(s);
	client("127.0.0.1", port, 0.2, 100, 200, &r);
	if (!r.trans || r.bad || r.min > r.p50 || r.p50 > r.p90 ||
	    r.p90 > r.p99 || r.p99 > r.max) {
		fprintf(stderr, "self-test: %llu transactions, %llu bad echoes, latency %u/%u/%u/%u/%u\n",
			(unsigned long long)r.trans, (unsigned long long)r.bad,
			r.min, r.p50, r.p90, r.p99, r.max);
		fails++;
	}
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	printf("sis-netperf self-test: %s\n", fails ? "FAILED" : "ok");
	return !!fails;
}

static unsigned int size_arg(const char *s, char **end)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (errno || *end == s || v < 1 || v > MAX_MSG) {
		fprintf(stderr, "sis-netperf: bad size '%s' (1..%d)\n", s, MAX_MSG);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *laddr = "0.0.0.0", *test = "TCP_RR";
	const char *keys = NULL;
	unsigned int req = 1, resp = 1;
	int server = 0, port = DEFAULT_PORT, i;
	double secs = 10;
	struct result r;
	char *end;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--self-test"))
			return self_test();
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			usage(0);
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-S")) {
			server = 1;
			continue;
		}
		if (!v || a[0] != '-' || strlen(a) != 2)
			usage(2);
		switch (a[1]) {
		case 'H': host = v; break;
		case 'L': laddr = v; break;
		case 't': test = v; break;
		case 'p': port = strtol(v, &end, 10);
			  if (*end || port < 1 || port > 65535)
				  usage(2);
			  break;
		case 'l': secs = strtod(v, &end);
			  if (*end || secs <= 0)
				  usage(2);
			  break;
		default: usage(2);
		}
		i++;
	}
	for (i++; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			req = resp = size_arg(argv[++i], &end);
			if (*end == ',')
				resp = size_arg(end + 1, &end);
			if (*end)
				usage(2);
		} else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
			keys = argv[++i];
		} else {
			usage(2);
		}
	}
	if (server) {
		int s = listen_on(laddr, &port);

		server_loop(s);
	}
	if (!host)
		usage(2);
	if (strcmp(test, "TCP_RR")) {
		fprintf(stderr, "sis-netperf: only TCP_RR is implemented, not '%s'\n", test);
		exit(2);
	}
	client(host, port, secs, req, resp, &r);
	if (r.bad) {
		fprintf(stderr, "sis-netperf: %llu responses did not echo their request\n",
			(unsigned long long)r.bad);
		exit(1);
	}
	if (keys)
		print_keyval(keys, &r, req, resp);
	else
		print_table(host, &r, req, resp);
	return 0;
}

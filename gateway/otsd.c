/*-------------------------------------------------------------------------
 * gateway/otsd.c
 *	  otsd's main: reads the configuration, opens the log, starts the
 *	  request memory (memory.c), the connection pools (pool.c) and the HTTP
 *	  server (http.c), and stops them at SIGINT or SIGTERM.
 *
 *	  otsd -c <config file>
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "http.h"
#include "log.h"
#include "otsd.h"
#include "plainbuffer.h"

int
main(int argc, char **argv)
{
	const char *config_path = NULL;
	struct addrinfo *address;
	struct MHD_Daemon *daemon;
	sigset_t	stop_signals;
	int			opt,
				signal_number;

	while ((opt = getopt(argc, argv, "c:h")) != -1)
	{
		if (opt == 'c')
			config_path = optarg;
		else
		{
			fprintf(stderr, "usage: otsd -c <config file>\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (config_path == NULL || optind != argc)
	{
		fprintf(stderr, "usage: otsd -c <config file>\n");
		return 2;
	}
	config_read(config_path);
	auth_prepare_keys(config.keys, config.key_count);
	if (!log_open(config.log))
		config_die("cannot open log %s: %s", config.log, strerror(errno));
	address = config_listen_address(config.listen);

	/* the threads started from here on leave these signals to main */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

	memory_start(config.decode_memory);
	pb_stop_decoding = memory_exceeded;
	pb_allocator = &memory_protobuf;
	pool_start(config.keys, config.key_count, config.database, config.search_path,
			   config.pool_size);
	daemon = http_start(address);
	if (daemon == NULL)
		config_die("cannot listen on %s", config.listen);
	freeaddrinfo(address);
	log_write("otsd: listening on %s, instance %s, %d access key(s), pool_size %d, threads %d, "
			  "decode_memory %zu",
			  config.listen, config.instance, config.key_count, config.pool_size, config.threads,
			  config.decode_memory);

	sigwait(&stop_signals, &signal_number);
	log_write("otsd: %s received, stopping", strsignal(signal_number));
	http_stop(daemon);
	pool_stop(config.keys, config.key_count);
	log_write("otsd: stopped");
	return 0;
}

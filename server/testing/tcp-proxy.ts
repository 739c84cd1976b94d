import net from "node:net";

/**
 * A TCP proxy that tests stop and start to stand in for a server going down and coming back
 * (PostgreSQL, Redis) without touching the machine's real service.
 */
export async function tcpProxy(targetPort: number, targetHost = "127.0.0.1") {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const server = net.createServer((client) => {
    if (stalled) {
      sockets.add(client.on("error", () => {}));
      return; // accepted, never answered
    }
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    /** Refuses new connections and cuts the open ones, like a server that went away. */
    async stop() {
      // close() waits for open connections to end, so cut them first.
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      stalled = false;
      await closed;
    },
    /**
     * Stops passing bytes either way without closing anything, like a network path that went silent:
     * open connections hang, new ones are accepted and never answered. `stop()` ends it.
     */
    stall() {
      stalled = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    /** Accepts connections again on the same port. */
    async start() {
      await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    },
  };
}

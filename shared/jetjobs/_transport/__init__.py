"""Transport: reaching NATS and JetStream.

- `connection`, `connection_events`: connect (to `NATS_URL` or the embedded server), and log
  what a running connection says about itself.
- `embedded`: the private `nats-server -js` for development and tests.
- `requests`: many JetStream requests (publish acks, direct gets) in flight through one inbox.
- `pull`, `inbox`: a pull consumer's deliveries; subscriptions read in the connection's loop.
- `topology`: the names and provisioning of streams, consumers and buckets.
"""

// Preloaded into the Redocly CLI by lint.test.ts: a connection or DNS lookup it attempts is
// reported on stderr (the test fails on the marker) and refused.
const net = require('node:net');
const dns = require('node:dns');

const refuse = (what) => {
  process.stderr.write(`offline check: redocly tried to reach ${what}\n`);
  throw new Error('no network in the lint run');
};
net.Socket.prototype.connect = function connect(options) {
  refuse(JSON.stringify(options && typeof options === 'object' ? { host: options.host, port: options.port, path: options.path } : options));
};
dns.lookup = (host) => refuse(host);
dns.promises.lookup = async (host) => refuse(host);

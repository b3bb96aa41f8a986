// Tests never write to the developer's ./data: each test that needs a data dir makes its own.
process.env.RATE_LIMIT ??= 'on';

// Baseline: bare Express answering a constant JSON body of the same size as a check response.
import { readFileSync } from 'node:fs';
import express from 'express';

const body = readFileSync(process.env.BENCH_BODY_FILE!, 'utf8');
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json({ limit: '10kb' }));
app.post('/api/v1/check-postcode', (_req, res) => {
  res.type('application/json').send(body);
});
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

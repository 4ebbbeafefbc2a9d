import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, sharedInstance } from '../../../server/config';

/** The error loadConfig throws for `env`, asserting it is a one-line ConfigError. */
function configError(env: Record<string, string>): string {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  expect(caught, JSON.stringify(env)).toBeInstanceOf(ConfigError);
  const message = (caught as Error).message;
  expect(message.split('\n'), 'one line').toHaveLength(1);
  expect(message).toMatch(/^Invalid configuration: /);
  return message;
}

describe('loadConfig (environment settings, their defaults, one-line errors)', () => {
  it('has the documented defaults', () => {
    // toMatchObject: other settings (sessions, ingest) have defaults of their own, tested with their features.
    const config = loadConfig({});
    expect(config.SESSION_SECRET).toBeUndefined();
    expect(config.POSTCODE_LGA_URL).toBeUndefined();
    expect(config.CHROMIUM_PATH).toBeUndefined();
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      INGEST_SCHEDULE: '0 3 * * *',
      DISASTERASSIST_BASE_URL: 'https://www.disasterassist.gov.au',
      // The CKAN package: its current CSV resource is found at each refresh (SOURCES.md §2).
      DRFA_CSV_URL: 'https://data.gov.au/data/api/3/action/package_show?id=drfa-activation-history-by-lga',
      INGEST_MIN_DECLARATIONS: 200,
      TRUST_PROXY: false,
      LOG_LEVEL: 'info',
    });
  });

  it('runs without the DRFA CSV when DRFA_CSV_URL=none, and takes a floor and a browser path', () => {
    expect(loadConfig({ DRFA_CSV_URL: 'none' }).DRFA_CSV_URL).toBeNull();
    expect(loadConfig({ INGEST_MIN_DECLARATIONS: '0', CHROMIUM_PATH: '/opt/chromium/chrome' })).toMatchObject({
      INGEST_MIN_DECLARATIONS: 0,
      CHROMIUM_PATH: '/opt/chromium/chrome',
    });
  });

  it('treats empty and blank values as unset (the defaults apply)', () => {
    const config = loadConfig({
      PORT: '',
      HOST: '  ',
      DATA_DIR: '',
      INGEST_SCHEDULE: '',
      DISASTERASSIST_BASE_URL: '',
      DRFA_CSV_URL: '',
      POSTCODE_LGA_URL: '',
      SESSION_SECRET: '',
      TRUST_PROXY: '',
      LOG_LEVEL: '',
      NODE_ENV: '',
    });
    expect(config).toEqual(loadConfig({}));
  });

  it('reads the values it is given', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/dte',
      INGEST_SCHEDULE: '30 4 * * *',
      DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9999',
      DRFA_CSV_URL: 'https://example.test/drfa.csv',
      POSTCODE_LGA_URL: './abs.csv',
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/dte',
      INGEST_SCHEDULE: '30 4 * * *',
      DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9999',
      DRFA_CSV_URL: 'https://example.test/drfa.csv',
      POSTCODE_LGA_URL: './abs.csv',
      TRUST_PROXY: 1,
      LOG_LEVEL: 'warn',
    });
  });

  it('accepts PORT=0 (an ephemeral port) and the ends of the port range', () => {
    expect(loadConfig({ PORT: '0' }).PORT).toBe(0);
    expect(loadConfig({ PORT: '65535' }).PORT).toBe(65535);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['INGEST_SCHEDULE', 'every day'],
    ['INGEST_SCHEDULE', '61 * * * *'],
    ['DISASTERASSIST_BASE_URL', 'not a url'],
    ['DISASTERASSIST_BASE_URL', 'ftp://www.disasterassist.gov.au'],
    ['DRFA_CSV_URL', 'drfa.csv'],
    ['INGEST_MIN_DECLARATIONS', '-5'],
    ['INGEST_MIN_DECLARATIONS', 'many'],
    ['LOG_LEVEL', 'verbose'],
    ['NODE_ENV', 'staging'],
  ])('refuses %s=%s in one line naming the variable and the value', (name, value) => {
    const message = configError({ [name]: value });
    expect(message).toContain(name);
    expect(message).toContain(`"${value}"`);
    // Only that variable is blamed.
    for (const other of [
      'PORT',
      'INGEST_SCHEDULE',
      'DISASTERASSIST_BASE_URL',
      'DRFA_CSV_URL',
      'LOG_LEVEL',
      'NODE_ENV',
    ]) {
      if (other !== name) expect(message).not.toContain(other);
    }
  });

  it('names every bad variable, still in one line', () => {
    const message = configError({ PORT: 'abc', INGEST_SCHEDULE: 'nightly' });
    expect(message).toContain('PORT');
    expect(message).toContain('INGEST_SCHEDULE');
  });

  it('keeps a value with a line break on one line', () => {
    const message = configError({ PORT: '80\n81' });
    expect(message).toContain('PORT');
  });

  it('refuses NODE_ENV=production without SESSION_SECRET', () => {
    const message = configError({ NODE_ENV: 'production' });
    expect(message).toContain('SESSION_SECRET');
    expect(() => loadConfig({ NODE_ENV: 'production', SESSION_SECRET: '' })).toThrow(/SESSION_SECRET/);
  });

  it('refuses a short SESSION_SECRET without echoing it', () => {
    const message = configError({ NODE_ENV: 'production', SESSION_SECRET: 'hunter2' });
    expect(message).toContain('SESSION_SECRET');
    expect(message).not.toContain('hunter2');
  });

  it('accepts production with a long enough SESSION_SECRET, and no secret outside production', () => {
    const secret = 'x'.repeat(32);
    expect(
      loadConfig({ NODE_ENV: 'production', SESSION_SECRET: secret, PUBLIC_URL: 'https://dte.clinic.example' })
        .SESSION_SECRET,
    ).toBe(secret);
    expect(loadConfig({ NODE_ENV: 'development' }).SESSION_SECRET).toBeUndefined();
  });

  it('reads PUBLIC_URL as one or more comma-separated origins; unset outside production = the origins it listens on', () => {
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: '' }).PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://dte.clinic.example' }).PUBLIC_URL).toEqual(['https://dte.clinic.example']);
    // Normalised to origins: case, default ports and a trailing path or slash do not matter.
    expect(
      loadConfig({ PUBLIC_URL: ' HTTPS://DTE.Clinic.Example:443/ , http://10.0.0.5:3000/dte ,' }).PUBLIC_URL,
    ).toEqual(['https://dte.clinic.example', 'http://10.0.0.5:3000']);
  });

  it.each([
    'dte.clinic.example',
    'ftp://dte.clinic.example',
    'https://',
    'https://dte.clinic.example,not a url',
    'null',
  ])('refuses PUBLIC_URL=%s in one line naming the variable', (value) => {
    const message = configError({ PUBLIC_URL: value });
    expect(message).toContain('PUBLIC_URL');
    expect(message).toContain(JSON.stringify(value));
  });

  it('reads REDIS_URL as an optional redis:// or rediss:// URL', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ REDIS_URL: 'rediss://:secret@cache.example:6380/2' }).REDIS_URL).toBe(
      'rediss://:secret@cache.example:6380/2',
    );
    for (const value of ['http://cache.example', 'cache.example:6379', 'redis:']) {
      const message = configError({ REDIS_URL: value });
      expect(message).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    }
    // It may hold a password: never echoed.
    expect(configError({ REDIS_URL: 'http://:hunter2@cache.example' })).not.toContain('hunter2');
  });

  it('reads SMTP_URL (smtp:// or smtps://, never echoed) and MAIL_FROM, which SMTP_URL requires', () => {
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
    expect(loadConfig({ SMTP_URL: '', MAIL_FROM: '' }).MAIL_FROM).toBeUndefined();
    const from = 'Bondi Medical <noreply@bondi.example>';
    for (const url of ['smtp://user:pw@mail.example:587', 'smtps://mail.example']) {
      expect(loadConfig({ SMTP_URL: url, MAIL_FROM: from })).toMatchObject({ SMTP_URL: url, MAIL_FROM: from });
    }
    expect(loadConfig({ MAIL_FROM: ' noreply@bondi.example ' }).MAIL_FROM).toBe('noreply@bondi.example');
    expect(configError({ SMTP_URL: 'smtp://mail.example' })).toContain('MAIL_FROM is required when SMTP_URL is set');
    const bad = configError({ SMTP_URL: 'http://user:hunter2@mail.example', MAIL_FROM: from });
    expect(bad).toContain('SMTP_URL must be an smtp:// or smtps:// URL');
    expect(bad).not.toContain('hunter2');
    for (const value of ['noreply', 'Name <not an address>', 'a@b.c\nBcc: x@y.z', '<a@b.c> <d@e.f>']) {
      expect(configError({ MAIL_FROM: value })).toContain('MAIL_FROM must be an email address');
    }
  });

  it('reads OPERATOR_CONTACT as one line of text (trimmed, at most 200 characters); unset by default', () => {
    expect(loadConfig({}).OPERATOR_CONTACT).toBeUndefined();
    expect(loadConfig({ OPERATOR_CONTACT: '  ' }).OPERATOR_CONTACT).toBeUndefined();
    const contact = 'Clinic IT Services, help@clinicit.example, 02 5550 1234';
    expect(loadConfig({ OPERATOR_CONTACT: ` ${contact} ` }).OPERATOR_CONTACT).toBe(contact);
    expect(loadConfig({ OPERATOR_CONTACT: 'Émile’s IT 🛠, https://it.example/help' }).OPERATOR_CONTACT).toBe(
      'Émile’s IT 🛠, https://it.example/help',
    );
    for (const value of ['IT\nServices', 'IT\u0007 Services', 'IT\u001b[31m Services', 'IT\u2028Services']) {
      expect(configError({ OPERATOR_CONTACT: value })).toContain(
        'OPERATOR_CONTACT must be one line of text, without control characters',
      );
    }
    expect(configError({ OPERATOR_CONTACT: 'IT \ud800 Services' })).toContain('OPERATOR_CONTACT must be text');
    expect(configError({ OPERATOR_CONTACT: 'x'.repeat(201) })).toContain(
      'OPERATOR_CONTACT must be at most 200 characters',
    );
  });

  it('requires PUBLIC_URL when NODE_ENV=production', () => {
    const secret = 'x'.repeat(32);
    expect(configError({ NODE_ENV: 'production', SESSION_SECRET: secret })).toContain(
      'PUBLIC_URL is required when NODE_ENV=production',
    );
    expect(
      loadConfig({ NODE_ENV: 'production', SESSION_SECRET: secret, PUBLIC_URL: 'https://dte.clinic.example' })
        .PUBLIC_URL,
    ).toEqual(['https://dte.clinic.example']);
  });

  it('reads TRUST_PROXY as a boolean, a hop count or an address list', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
  });
});

describe('sharedInstance (one decision for the storage, the heap sizing and the session secret)', () => {
  it('is shared exactly when DATABASE_URL or REDIS_URL is set', () => {
    expect(sharedInstance(loadConfig({}))).toBe(false);
    expect(sharedInstance(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x' }))).toBe(true);
    expect(sharedInstance(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }))).toBe(true);
  });
});

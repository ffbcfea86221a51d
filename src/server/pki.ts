/**
 * Cairn's own certificates: the serving CA and certificate, the client CA and the admin
 * client certificate it generates under `--data-dir/pki` (kept while still good), the
 * serving pair `npm run certs` issues for an APIService, client certificates issued by the
 * client CA, and a serving pair loaded from `--tls-cert-file`.
 */
import { X509Certificate, createPrivateKey, generateKeyPair, generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

/**
 * The TLS material Cairn serves and authenticates with, as PEM text.
 *
 * `servingCaPem` is what clients (kube-apiserver's APIService `caBundle`, kubectl)
 * trust; `clientCaPem` is what the server trusts for client certificates.
 */
export interface Pki {
  /** CA certificate that signed the serving certificate. */
  readonly servingCaPem: string;
  /** Serving certificate, with a subjectAltName for every requested host. */
  readonly servingCertPem: string;
  /** Private key of the serving certificate. */
  readonly servingKeyPem: string;
  /** CA certificate trusted for client certificates. */
  readonly clientCaPem: string;
  /** Private key of the client CA, for minting further client certificates. */
  readonly clientCaKeyPem: string;
  /** Client certificate for `cairn-admin` in group `system:masters`. */
  readonly adminCertPem: string;
  /** Private key of the admin client certificate. */
  readonly adminKeyPem: string;
}

/** Options of {@link ensurePki}. */
export interface EnsurePkiOptions {
  /** DNS names and IP addresses the serving certificate must cover, e.g. `localhost`, `127.0.0.1`, `::1`. */
  readonly hosts: readonly string[];
}

/** A serving CA and the serving certificate it signed, as PEM text (see {@link ensureServingPki}). */
export interface ServingPki {
  /** CA certificate that signed the serving certificate. */
  readonly caPem: string;
  /** Private key of the CA. */
  readonly caKeyPem: string;
  /** Serving certificate, with a subjectAltName for every requested host. */
  readonly certPem: string;
  /** Private key of the serving certificate. */
  readonly keyPem: string;
}

/** The subject of a client certificate: Kubernetes reads the user from CN and groups from O. */
export interface ClientSubject {
  /** User name. */
  readonly commonName: string;
  /** Group names, one O attribute each. */
  readonly organizations?: readonly string[];
}

/** A certificate and its private key, as PEM text. */
export interface IssuedCertificate {
  /** The certificate. */
  readonly certPem: string;
  /** Its private key (PKCS#1). */
  readonly keyPem: string;
}

/** File names of the material inside the PKI directory. */
const FILES = Object.freeze({
  servingCaCert: 'serving-ca.crt',
  servingCaKey: 'serving-ca.key',
  servingCert: 'serving.crt',
  servingKey: 'serving.key',
  clientCaCert: 'client-ca.crt',
  clientCaKey: 'client-ca.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
});

const CA_VALID_DAYS = 3650;
const LEAF_VALID_DAYS = 365;
const CLOCK_SKEW_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The admin identity: `system:masters` is bound to cluster-admin by Kubernetes' default RBAC. */
const ADMIN_SUBJECT: ClientSubject = Object.freeze({
  commonName: 'cairn-admin',
  organizations: Object.freeze(['system:masters']),
});

interface KeyPairPem {
  readonly publicKeyPem: string;
  readonly privateKeyPem: string;
}

interface CaPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Extensions in node-forge's loose object form. */
type Extension = Readonly<Record<string, unknown>>;

const RSA_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
} as const;

/**
 * Loads the TLS material from `dir`, generating and writing whatever is missing.
 *
 * Both CAs are kept once created. The serving certificate is re-issued from the existing
 * serving CA when it no longer covers every host in `options.hosts`, has expired, or does
 * not match its CA or key; the admin certificate likewise when it no longer chains to the
 * client CA. A missing leaf file (certificate or key) means the pair is issued anew. Keys are written with mode 0600. A CA certificate without its key (or the
 * reverse) is an error rather than something to silently replace.
 *
 * @example
 * const pki = await ensurePki('/var/lib/cairn/pki', { hosts: ['localhost', '127.0.0.1', '::1'] });
 * http2.createSecureServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.clientCaPem, requestCert: true });
 */
export async function ensurePki(dir: string, options: EnsurePkiOptions): Promise<Pki> {
  const serving = await ensureServingPki(dir, options);
  const unixTime = Math.floor(Date.now() / 1000);
  const clientCa = await ensureCa(dir, FILES.clientCaCert, FILES.clientCaKey, `cairn-client-ca@${unixTime}`);
  const admin = await ensureLeaf(
    dir,
    FILES.adminCert,
    FILES.adminKey,
    () => true,
    async () => issueClientCertificateWithKeys(clientCa, ADMIN_SUBJECT, LEAF_VALID_DAYS, await generateRsaKeyPair()),
    clientCa,
  );

  return Object.freeze({
    servingCaPem: serving.caPem,
    servingCertPem: serving.certPem,
    servingKeyPem: serving.keyPem,
    clientCaPem: clientCa.certPem,
    clientCaKeyPem: clientCa.keyPem,
    adminCertPem: admin.certPem,
    adminKeyPem: admin.keyPem,
  });
}

/**
 * The serving half of {@link ensurePki}: loads the serving CA and certificate from `dir`
 * (`serving-ca.crt`, `serving-ca.key`, `serving.crt`, `serving.key`), creating the CA when
 * absent and re-issuing the certificate when it no longer covers every host in
 * `options.hosts`, has expired, or does not match its CA or key.
 *
 * @example
 * // what `npm run certs` does for an APIService
 * const serving = await ensureServingPki('apiservice/certs', { hosts: ['cairn-apiserver.cairn-system.svc'] });
 */
export async function ensureServingPki(dir: string, options: EnsurePkiOptions): Promise<ServingPki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const unixTime = Math.floor(Date.now() / 1000);
  const servingCa = await ensureCa(dir, FILES.servingCaCert, FILES.servingCaKey, `cairn-serving-ca@${unixTime}`);
  const serving = await ensureLeaf(
    dir,
    FILES.servingCert,
    FILES.servingKey,
    (certPem) => options.hosts.every((host) => coversHost(certPem, host)),
    async () => {
      const keys = await generateRsaKeyPair();
      const certPem = signCertificate({
        subject: [utf8Attribute('commonName', 'cairn-apiserver')],
        publicKeyPem: keys.publicKeyPem,
        issuer: servingCa,
        validDays: LEAF_VALID_DAYS,
        extensions: servingExtensions(options.hosts),
      });
      return { certPem, keyPem: keys.privateKeyPem };
    },
    servingCa,
  );
  return Object.freeze({ caPem: servingCa.certPem, caKeyPem: servingCa.keyPem, certPem: serving.certPem, keyPem: serving.keyPem });
}

/** A serving certificate read from files (see {@link loadServingCertificate}). */
export interface ServingCertificate extends IssuedCertificate {
  /**
   * What a client of this server should trust: the certificates after the first in the
   * certificate file (its CA), or the certificate itself when the file holds only one.
   */
  readonly caPem: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----(?:\r?\n)?/g;

/**
 * Reads a serving certificate and its key from files, as kube's `--tls-cert-file` and
 * `--tls-private-key-file`: the certificate file holds PEM, the server's certificate first
 * and the CA's (if any) concatenated after it. Throws when the key is not the first
 * certificate's.
 *
 * @example
 * const serving = await loadServingCertificate('/etc/cairn/serving/tls.crt', '/etc/cairn/serving/tls.key');
 */
export async function loadServingCertificate(certFile: string, keyFile: string): Promise<ServingCertificate> {
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  let matches: boolean;
  try {
    matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch (error) {
    throw new Error(`cannot read the serving certificate ${certFile} and key ${keyFile}: ${(error as Error).message}`, { cause: error });
  }
  if (!matches) throw new Error(`${keyFile} is not the key of ${certFile}`);
  const certificates = certPem.match(PEM_CERTIFICATE) ?? [];
  const caPem = certificates.length > 1 ? certificates.slice(1).join('') : certPem;
  return Object.freeze({ certPem, keyPem, caPem });
}

/**
 * Issues a client certificate (EKU clientAuth) signed by the given CA, with a fresh key.
 *
 * Kubernetes maps CN to the user name and each O to a group.
 *
 * @example
 * const alice = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'alice', organizations: ['dev'] });
 */
export function issueClientCertificate(caCertPem: string, caKeyPem: string, subject: ClientSubject, validDays: number = LEAF_VALID_DAYS): IssuedCertificate {
  const keys = generateKeyPairSync('rsa', RSA_OPTIONS);
  return issueClientCertificateWithKeys({ certPem: caCertPem, keyPem: caKeyPem }, subject, validDays, {
    publicKeyPem: keys.publicKey,
    privateKeyPem: keys.privateKey,
  });
}

function issueClientCertificateWithKeys(ca: CaPair, subject: ClientSubject, validDays: number, keys: KeyPairPem): IssuedCertificate {
  const certPem = signCertificate({
    subject: [utf8Attribute('commonName', subject.commonName), ...(subject.organizations ?? []).map((o) => utf8Attribute('organizationName', o))],
    publicKeyPem: keys.publicKeyPem,
    issuer: ca,
    validDays,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return Object.freeze({ certPem, keyPem: keys.privateKeyPem });
}

/** Loads a CA pair, or creates a self-signed one when neither file exists. */
async function ensureCa(dir: string, certFile: string, keyFile: string, commonName: string): Promise<CaPair> {
  const certPath = join(dir, certFile);
  const keyPath = join(dir, keyFile);
  const { certPem: loadedCert, keyPem: loadedKey } = await loadPair(certPath, keyPath);
  if (loadedCert !== undefined && loadedKey !== undefined) {
    if (!new X509Certificate(loadedCert).checkPrivateKey(createPrivateKey(loadedKey))) {
      throw new Error(`${keyPath} is not the key of ${certPath}`);
    }
    return { certPem: loadedCert, keyPem: loadedKey };
  }
  if (loadedCert !== undefined) throw new Error(`${certPath} exists but ${keyPath} does not`);
  if (loadedKey !== undefined) throw new Error(`${keyPath} exists but ${certPath} does not`);
  const keys = await generateRsaKeyPair();
  const certPem = signCertificate({
    subject: [utf8Attribute('commonName', commonName)],
    publicKeyPem: keys.publicKeyPem,
    issuer: undefined,
    selfSigningKeyPem: keys.privateKeyPem,
    validDays: CA_VALID_DAYS,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
    ],
  });
  const pair = { certPem, keyPem: keys.privateKeyPem };
  await writePair(dir, certFile, keyFile, pair);
  return pair;
}

/** Loads a leaf pair if both files exist and are still good for `ca` (and `fits`), else issues and writes a new one. */
async function ensureLeaf(
  dir: string,
  certFile: string,
  keyFile: string,
  fits: (certPem: string) => boolean,
  issue: () => Promise<IssuedCertificate>,
  ca: CaPair,
): Promise<IssuedCertificate> {
  const { certPem, keyPem } = await loadPair(join(dir, certFile), join(dir, keyFile));
  if (certPem !== undefined && keyPem !== undefined) {
    const loaded = { certPem, keyPem };
    if (isUsableLeaf(loaded, ca) && fits(certPem)) return loaded;
  }
  const issued = await issue();
  await writePair(dir, certFile, keyFile, issued);
  return issued;
}

/** A leaf is usable when it is signed by `ca`, matches its key and is currently valid. */
function isUsableLeaf(pair: IssuedCertificate, ca: CaPair): boolean {
  try {
    const cert = new X509Certificate(pair.certPem);
    const caCert = new X509Certificate(ca.certPem);
    const now = Date.now();
    return (
      cert.checkIssued(caCert) &&
      cert.verify(caCert.publicKey) &&
      cert.checkPrivateKey(createPrivateKey(pair.keyPem)) &&
      Date.parse(cert.validFrom) <= now &&
      now < Date.parse(cert.validTo)
    );
  } catch {
    return false;
  }
}

/** Whether the certificate's SANs cover `host` (never falling back to the CN, like Go). */
function coversHost(certPem: string, host: string): boolean {
  const cert = new X509Certificate(certPem);
  return isIP(host) !== 0 ? cert.checkIP(host) !== undefined : cert.checkHost(host, { subject: 'never', wildcards: false }) !== undefined;
}

/** Reads a certificate and key file; either is undefined when absent. */
async function loadPair(certPath: string, keyPath: string): Promise<Partial<IssuedCertificate>> {
  const [certPem, keyPem] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  return { certPem, keyPem };
}

/** Absent is a normal state of the PKI directory; any other read error is not. */
async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writePair(dir: string, certFile: string, keyFile: string, pair: IssuedCertificate): Promise<void> {
  await writeWithMode(join(dir, keyFile), pair.keyPem, 0o600);
  await writeWithMode(join(dir, certFile), pair.certPem, 0o644);
}

/** writeFile's mode only applies to new files; chmod covers overwrites. */
async function writeWithMode(path: string, data: string, mode: number): Promise<void> {
  await writeFile(path, data, { mode });
  await chmod(path, mode);
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** RSA key generation in node:crypto (OpenSSL, off the event loop); forge's pure-JS keygen is far slower. */
async function generateRsaKeyPair(): Promise<KeyPairPem> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', RSA_OPTIONS);
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

function servingExtensions(hosts: readonly string[]): readonly Extension[] {
  const altNames = [...new Set(hosts)].map((host) => (isIP(host) !== 0 ? { type: 7, ip: host } : { type: 2, value: host }));
  return [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ];
}

/**
 * Subject attributes as UTF8String: forge defaults to PrintableString, which cannot hold
 * '@' (as in `cairn-serving-ca@<time>`), and Go's x509 parser rejects such certificates.
 */
function utf8Attribute(name: 'commonName' | 'organizationName', value: string): forge.pki.CertificateField {
  // @types/node-forge types valueTagClass as asn1.Class, but forge reads it as an asn1.Type.
  return { name, value, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class };
}

interface SignRequest {
  readonly subject: readonly forge.pki.CertificateField[];
  readonly publicKeyPem: string;
  /** The signing CA; undefined for a self-signed certificate. */
  readonly issuer: CaPair | undefined;
  /** Required when `issuer` is undefined. */
  readonly selfSigningKeyPem?: string;
  readonly validDays: number;
  /** Everything but the key identifiers, which are always added. */
  readonly extensions: readonly Extension[];
}

/** Builds and signs one certificate (SHA-256), adding subject and authority key identifiers. */
function signCertificate(request: SignRequest): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(request.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(now + request.validDays * DAY_MS);
  cert.setSubject([...request.subject]);

  let signingKeyPem: string;
  let authorityKeyId: string;
  if (request.issuer === undefined) {
    if (request.selfSigningKeyPem === undefined) throw new Error('a self-signed certificate needs its private key');
    signingKeyPem = request.selfSigningKeyPem;
    cert.setIssuer([...request.subject]);
    authorityKeyId = cert.generateSubjectKeyIdentifier().getBytes();
  } else {
    const caCert = forge.pki.certificateFromPem(request.issuer.certPem);
    signingKeyPem = request.issuer.keyPem;
    cert.setIssuer(caCert.subject.attributes);
    authorityKeyId = subjectKeyIdOf(caCert);
  }

  cert.setExtensions([...request.extensions, { name: 'subjectKeyIdentifier' }, { name: 'authorityKeyIdentifier', keyIdentifier: authorityKeyId }]);
  cert.sign(forge.pki.privateKeyFromPem(signingKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** The CA's own SKI when it has one (it may not have been computed the way forge does), as bytes. */
function subjectKeyIdOf(caCert: forge.pki.Certificate): string {
  const extension: { subjectKeyIdentifier?: string } | undefined = caCert.getExtension('subjectKeyIdentifier');
  return extension?.subjectKeyIdentifier !== undefined
    ? forge.util.hexToBytes(extension.subjectKeyIdentifier)
    : caCert.generateSubjectKeyIdentifier().getBytes();
}

/** A 128-bit serial, high bit clear (positive, as Go requires) and second-highest set (never zero, fixed length). */
function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

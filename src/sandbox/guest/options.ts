/** What the host tells the guest prelude when it is started (see guest-prelude.ts). */
export interface GuestOptions {
  /** Characters a result (or an error envelope) may take when it leaves the isolate. */
  maxOutputChars: number;
  /** The global the module bundle registers its factory with (bundle.ts REGISTER_GLOBAL). */
  registerGlobal: string;
}

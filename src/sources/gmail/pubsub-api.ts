import { GoogleApiError, type GoogleRequest } from './google-http.js';

interface ReceivedMessage {
  ackId: string;
  message: PubsubMessage;
}

interface PubsubMessage {
  data?: string;
  messageId?: string;
  publishTime?: string;
  attributes?: Record<string, string>;
}

interface IamPolicy {
  version?: number;
  etag?: string;
  bindings?: { role: string; members: string[] }[];
}

export interface SubscriptionSpec {
  topic: string;
  ackDeadlineSeconds: number;
  pushConfig?: { pushEndpoint: string; oidcToken: { serviceAccountEmail: string; audience: string } };
}

export interface PubsubApi {
  /** Waits (Google holds the request open) and returns up to `max` messages; [] when none came. */
  pull(subscription: string, max: number, signal?: AbortSignal): Promise<ReceivedMessage[]>;
  acknowledge(subscription: string, ackIds: readonly string[]): Promise<void>;
  /** undefined when it does not exist. */
  getTopic(topic: string): Promise<object | undefined>;
  createTopic(topic: string): Promise<void>;
  getIamPolicy(topic: string): Promise<IamPolicy>;
  setIamPolicy(topic: string, policy: IamPolicy): Promise<void>;
  getSubscription(subscription: string): Promise<(SubscriptionSpec & { name: string }) | undefined>;
  createSubscription(subscription: string, spec: SubscriptionSpec): Promise<void>;
  modifyPushConfig(subscription: string, pushConfig: SubscriptionSpec['pushConfig'] | Record<string, never>): Promise<void>;
}

/** The Pub/Sub REST API v1; resource names are full (`projects/<p>/topics/<t>`). */
export function createPubsubApi(baseUrl: string, request: GoogleRequest): PubsubApi {
  const root = `${baseUrl.replace(/\/+$/, '')}/v1`;
  const url = (name: string, verb = '') => `${root}/${name.split('/').map(encodeURIComponent).join('/')}${verb}`;
  const orUndefined = async <T>(call: () => Promise<unknown>): Promise<T | undefined> => {
    try {
      return (await call()) as T;
    } catch (error) {
      if (error instanceof GoogleApiError && error.status === 404) return undefined;
      throw error;
    }
  };
  return {
    async pull(subscription, max, signal) {
      const body = (await request('POST', url(subscription, ':pull'), { maxMessages: max }, signal)) as { receivedMessages?: ReceivedMessage[] };
      return body.receivedMessages ?? [];
    },
    async acknowledge(subscription, ackIds) {
      if (ackIds.length > 0) await request('POST', url(subscription, ':acknowledge'), { ackIds });
    },
    getTopic: (topic) => orUndefined<object>(() => request('GET', url(topic))),
    async createTopic(topic) {
      await request('PUT', url(topic), {});
    },
    async getIamPolicy(topic) {
      return (await request('POST', url(topic, ':getIamPolicy'), {})) as IamPolicy;
    },
    async setIamPolicy(topic, policy) {
      await request('POST', url(topic, ':setIamPolicy'), { policy });
    },
    getSubscription: (subscription) => orUndefined(() => request('GET', url(subscription))),
    async createSubscription(subscription, spec) {
      await request('PUT', url(subscription), spec);
    },
    async modifyPushConfig(subscription, pushConfig) {
      await request('POST', url(subscription, ':modifyPushConfig'), { pushConfig });
    },
  };
}

/**
 * What an app writes to use svc-react-native-sdk (not built here: an app's own React Native
 * project holds it). The package's type checks compile it against React Native 0.68 and today's.
 */
import React, { useEffect, useState } from 'react';
import { Button, Text, View } from 'react-native';
import * as Svc from 'svc-react-native-sdk';

export default function App() {
  const [screen, setScreen] = useState('home');
  useEffect(() => {
    void Svc.configure({
      sdkKey: 'sk_YOUR_APP_KEY',
      baseUrl: 'https://attribution.example.com',
      requireConsent: true,
      onDeepLink: (link) => link.path && setScreen(link.path),
      onAttribution: (a) => console.log(a.kind === 'install' ? a.install.attribution.method : a.open.attributed),
    });
  }, []);
  return (
    <View>
      <Text>{screen}</Text>
      <Button title="Allow measurement" onPress={() => void Svc.setConsent(true)} />
      <Button title="Buy" onPress={() => Svc.logEvent('purchase', { value: 4.99, currency: 'EUR' })} />
    </View>
  );
}
